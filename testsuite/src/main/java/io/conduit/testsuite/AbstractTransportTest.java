package io.conduit.testsuite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.buffer.Buffer;
import io.conduit.buffer.BufferHolder;
import io.conduit.bootstrap.Bootstrap;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.ChannelOption;
import io.conduit.bootstrap.ServerBootstrap;
import io.conduit.channel.UnixAbstractAddress;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.concurrent.Future;
import io.conduit.internal.channel.core.ChannelStats;
import io.conduit.internal.channel.core.OpenChannels;
import io.conduit.transport.Availability;
import io.conduit.transport.ChannelType;
import io.conduit.transport.Transport;
import io.conduit.transport.spi.TransportProvider;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.UnsupportedAddressTypeException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * Base of the conformance tests. A transport module subclasses each test class once and names its
 * permutations in {@link #permutations()}; a permutation whose transport is unavailable on the running JVM is
 * not skipped: {@link #runnable(Combo)} asserts, through {@link #assertExpectedUnavailability}, that the
 * unavailability is the expected one (e.g. {@code nio-vthread} on JDK 17) and prints it.
 *
 * <p>Event loop groups (two loops each) are made once per transport and test class and closed after it.
 * Every test is bounded ({@link Timeout}); only loopback addresses and Unix sockets in temporary directories are used.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class AbstractTransportTest {

    /** Longest wait for one expected event, in seconds. */
    protected static final long WAIT_SECONDS = 20;

    private final Map<String, EventLoopGroup> groups = new ConcurrentHashMap<>();

    /** @return the named permutations this class runs for the transport module */
    protected abstract List<Combo> permutations();

    /**
     * Called for a permutation whose transport is unavailable here: assert that this is expected on this JVM
     * (and fail otherwise).
     */
    protected abstract void assertExpectedUnavailability(TransportProvider provider, Availability availability);

    /** @return {@code true} when the permutation can run; otherwise its unavailability was asserted and printed */
    protected boolean runnable(Combo combo) {
        TransportProvider p = combo.unavailableProvider();
        if (p == null) {
            return true;
        }
        Availability a = p.availability();
        assertNotNull(a.unavailabilityCause(), "unavailable provider without a cause: " + p.name());
        assertExpectedUnavailability(p, a);
        System.out.println("[conformance] " + getClass().getSimpleName() + " [" + combo + "]: transport '" + p.name()
                + "' is unavailable on JVM " + Runtime.version() + " as expected: " + a.unavailabilityCause().getMessage());
        return false;
    }

    /**
     * {@link #runnable(Combo)}, and both transports of {@code combo} have {@code type} channels. A transport without
     * them must refuse the kind at once, as {@code Transport} documents it: opening a channel (and, for a kind with
     * listeners, a server channel) of {@code type} throws an {@link UnsupportedOperationException} naming the type.
     * That is asserted here; it is the test's outcome for that transport, and the test ends with it.
     *
     * @return {@code true} when the test of {@code type} runs in full
     */
    protected boolean runnable(Combo combo, ChannelType type) {
        return runnable(combo) && offers(combo, type);
    }

    /**
     * @return {@code true} when both transports of {@code combo} have {@code type} channels; otherwise asserts
     *         that the one without them refuses the kind naming it (see {@link #runnable(Combo, ChannelType)})
     */
    protected boolean offers(Combo combo, ChannelType type) {
        boolean offered = true;
        for (Transport t : new Transport[] {combo.serverTransport(), combo.clientTransport()}) {
            if (t.channelTypes().contains(type)) {
                continue;
            }
            offered = false;
            EventLoopGroup g = group(t);
            UnsupportedOperationException e = org.junit.jupiter.api.Assertions.assertThrows(
                    UnsupportedOperationException.class, () -> t.newChannel(type, g.next()),
                    t.name() + " has no " + type + " channels; opening one must fail at once");
            assertTrue(e.getMessage().contains(type.toString()), e.getMessage());
            if (type == ChannelType.TCP || type == ChannelType.UNIX_STREAM) {
                e = org.junit.jupiter.api.Assertions.assertThrows(UnsupportedOperationException.class,
                        () -> t.newServerChannel(type, g.next()), t.name() + " has no " + type + " listeners");
                assertTrue(e.getMessage().contains(type.toString()), e.getMessage());
            }
            System.out.println("[conformance] " + getClass().getSimpleName() + " [" + combo + "]: transport '"
                    + t.name() + "' has no " + type + " channels and refuses them: " + e.getMessage());
        }
        return offered;
    }

    /** @return the group of {@code transport} for this test class */
    protected EventLoopGroup group(Transport transport) {
        return groups.computeIfAbsent(transport.name(), n -> transport.newEventLoopGroup(2));
    }

    @AfterAll
    void closeGroups() throws InterruptedException {
        for (EventLoopGroup g : groups.values()) {
            Waits.shutdown(g);
        }
        groups.clear();
    }

    /** Binds a server of {@code combo}'s server transport; children get {@code childHandler} and the allocator. */
    protected Channel bindServer(Combo combo, ChannelType type, SocketAddress address, ChannelHandler childHandler,
            Consumer<ServerBootstrap> customize) {
        Transport t = combo.serverTransport();
        ServerBootstrap b = new ServerBootstrap().transport(t).group(group(t)).channelType(type)
                .option(ChannelOption.ALLOCATOR, combo.allocator().allocator())
                .childOption(ChannelOption.ALLOCATOR, combo.allocator().allocator())
                .childHandler(childHandler);
        if (customize != null) {
            customize.accept(b);
        }
        return await(b.bind(address));
    }

    /** Connects a client of {@code combo}'s client transport with {@code handler}. */
    protected Channel connect(Combo combo, ChannelType type, SocketAddress remote, ChannelHandler handler,
            Consumer<Bootstrap> customize) {
        return await(connectFuture(combo, type, remote, handler, customize));
    }

    protected Future<Channel> connectFuture(Combo combo, ChannelType type, SocketAddress remote, ChannelHandler handler,
            Consumer<Bootstrap> customize) {
        Transport t = combo.clientTransport();
        Bootstrap b = new Bootstrap().transport(t).group(group(t)).channelType(type)
                .option(ChannelOption.ALLOCATOR, combo.allocator().allocator()).handler(handler);
        if (customize != null) {
            customize.accept(b);
        }
        return b.connect(remote);
    }

    /** @return 127.0.0.1 (or the loopback address of this host), any port */
    protected static InetSocketAddress loopback() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    }

    /** @return a fresh Unix-domain socket path in a new temporary directory */
    protected static UnixDomainSocketAddress unixAddress() {
        try {
            Path dir = Files.createTempDirectory("conduit-uds");
            dir.toFile().deleteOnExit();
            Path p = dir.resolve("s");
            p.toFile().deleteOnExit();
            return UnixDomainSocketAddress.of(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @return a loopback or Unix address for a server of {@code type} */
    protected static SocketAddress serverAddress(ChannelType type) {
        return type == ChannelType.UNIX_STREAM ? unixAddress() : loopback();
    }

    /** @return whether {@code t}'s sockets take Linux abstract Unix names (unix(7)): epoll and io_uring */
    protected static boolean hasAbstractNames(Transport t) {
        return t.supportsAddress(UnixAbstractAddress.of("probe"));
    }

    /**
     * Asserts the refusal of an abstract name by a transport without them: an
     * {@link UnsupportedAddressTypeException} naming the address, saying it is Linux-only (epoll) and to use a
     * socket file path instead.
     */
    protected static void assertAbstractRejected(Throwable cause, UnixAbstractAddress address) {
        assertInstanceOf(UnsupportedAddressTypeException.class, cause, String.valueOf(cause));
        String message = String.valueOf(cause.getMessage());
        assertTrue(message.contains(address.toString()) && message.contains("Linux-only")
                && message.contains("epoll") && message.contains("socket file path"), message);
    }

    /**
     * A handler (not sharable: one per channel) that passes every message on to the pipeline tail and then records
     * the reference count of its content — a {@link BufferHolder}, i.e. a datagram packet — in {@code countsAfterTail}:
     * 0 when the tail released it. Loop thread; the queue is read by the test thread ({@link #assertTailReleased}).
     */
    protected static ChannelHandler passToTailRecordingCount(BlockingQueue<Integer> countsAfterTail) {
        return new ChannelHandler() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                Buffer content = ((BufferHolder) msg).content();
                ctx.fireChannelRead(msg);
                countsAfterTail.add(content.refCnt());
            }
        };
    }

    /** Waits for the next count {@link #passToTailRecordingCount} recorded and asserts the tail released it. */
    protected static void assertTailReleased(BlockingQueue<Integer> countsAfterTail, String what)
            throws InterruptedException {
        Integer count = countsAfterTail.poll(WAIT_SECONDS, TimeUnit.SECONDS);
        assertNotNull(count, what + " did not arrive within " + WAIT_SECONDS + " s");
        assertEquals(0, count, "the pipeline tail released " + what);
    }

    /** @return {@code n} pseudo-random bytes, the same for the same seed */
    protected static byte[] randomBytes(int n, long seed) {
        byte[] a = new byte[n];
        new Random(seed).nextBytes(a);
        return a;
    }

    /** Waits for {@code f} and returns its result, failing the test with the cause when it failed. */
    protected static <T> T await(Future<T> f) {
        return Waits.await(f, WAIT_SECONDS);
    }

    /** Waits for {@code f} to be done (success or failure) and returns its cause, or {@code null}. */
    protected static Throwable awaitDone(Future<?> f) {
        return Waits.awaitDone(f, WAIT_SECONDS);
    }

    protected static <T> T await(CompletableFuture<T> f, String what) {
        try {
            return f.get(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("timed out after " + WAIT_SECONDS + " s waiting for " + what);
        } catch (Exception e) {
            throw new AssertionError("waiting for " + what + " failed: " + e, e);
        }
    }

    /** Polls {@code condition} until true, failing after {@link #WAIT_SECONDS} ({@link Waits#eventually}). */
    protected static void eventually(String what, java.util.function.BooleanSupplier condition) {
        Waits.eventually(what, WAIT_SECONDS, condition);
    }

    /**
     * @return the traffic counters the channel core reports for {@code c} to {@code conduit:channels}
     *         ({@link OpenChannels}); fails when {@code c} is not listed there
     */
    protected static ChannelStats traffic(Channel c) {
        for (ChannelStats s : OpenChannels.snapshot()) {
            if (s.channel() == c) {
                return s;
            }
        }
        throw new AssertionError("channel " + c + " is not in OpenChannels (conduit:channels)");
    }

    /** Fails unless {@code failure} or one of its causes is a {@code type}. */
    protected static void assertCausedBy(Class<? extends Throwable> type, Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return;
            }
        }
        org.junit.jupiter.api.Assertions.fail("expected a " + type.getSimpleName() + " in the cause chain of "
                + failure, failure);
    }

    /** Closes quietly (for finally blocks): {@link Waits#closeAll}. */
    protected static void closeAll(Channel... channels) {
        Waits.closeAll(channels);
    }
}
