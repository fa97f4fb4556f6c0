package io.conduit.testsuite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.channel.Channel;
import io.conduit.bootstrap.ServerBootstrap;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.UnixAbstractAddress;
import io.conduit.concurrent.Future;
import io.conduit.transport.ChannelType;
import io.conduit.transport.Transport;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.UnresolvedAddressException;
import java.nio.channels.UnsupportedAddressTypeException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Socket addresses, the same rule on every transport:
 * <ul>
 *   <li>a connect to an unresolved {@link InetSocketAddress} fails its future at once (well under
 *       {@value #PROMPT_MILLIS} ms) with an {@link UnresolvedAddressException} whose message names the address
 *       and says to resolve it;</li>
 *   <li>a connect with an address of the wrong kind (a {@link UnixDomainSocketAddress} on a TCP channel, an
 *       {@link InetSocketAddress} on a Unix-domain one) fails at once with an
 *       {@link UnsupportedAddressTypeException} naming the address and the kind to use;</li>
 *   <li>a Unix-domain server removes the socket file it bound when it closes, but not a file that replaced
 *       it; binding over an existing socket file fails with a message naming the path and the file;</li>
 *   <li>a Linux abstract Unix name ({@link UnixAbstractAddress}) binds and connects on the epoll transport, which
 *       reports it back as the local and remote address; every other transport fails the bind and the connect
 *       at once with an {@link UnsupportedAddressTypeException} naming the address and saying it needs epoll.</li>
 * </ul>
 * The client transport matters for connects, the server transport for the socket file.
 */
public abstract class SocketAddressTest extends AbstractTransportTest {

    /** Longest time a connect with a bad address may take to fail, in milliseconds. */
    protected static final long PROMPT_MILLIS = 2_000;

    private Throwable failedConnect(Combo combo, ChannelType type, SocketAddress remote) {
        Recorder r = new Recorder();
        long start = System.nanoTime();
        Future<Channel> f = connectFuture(combo, type, remote, r, null);
        try {
            assertTrue(f.await(PROMPT_MILLIS, TimeUnit.MILLISECONDS), "a connect to " + remote + " on a " + type
                    + " channel did not fail within " + PROMPT_MILLIS + " ms: " + f);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertFalse(f.isSuccess(), "a connect to " + remote + " succeeded");
        Throwable cause = f.cause();
        assertNotNull(cause.getMessage(), "failure without a message: " + cause);
        assertTrue(tookMillis < PROMPT_MILLIS, "took " + tookMillis + " ms");
        eventually("the failed channel closed", () -> r.channel() == null || !r.channel().isOpen());
        return cause;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void connectToAnUnresolvedAddressFailsAtOnceNamingIt(Combo combo) {
        if (!runnable(combo)) {
            return;
        }
        InetSocketAddress unresolved = InetSocketAddress.createUnresolved("no-such-host.invalid", 80);
        Throwable cause = failedConnect(combo, ChannelType.TCP, unresolved);
        assertInstanceOf(UnresolvedAddressException.class, cause, String.valueOf(cause));
        assertTrue(cause.getMessage().contains("no-such-host.invalid") && cause.getMessage().contains(":80")
                && cause.getMessage().contains("resolve"), cause.getMessage());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void connectWithAUnixAddressOnATcpChannelFailsAtOnceNamingIt(Combo combo) {
        if (!runnable(combo)) {
            return;
        }
        UnixDomainSocketAddress unix = unixAddress();
        Throwable cause = failedConnect(combo, ChannelType.TCP, unix);
        assertInstanceOf(UnsupportedAddressTypeException.class, cause, String.valueOf(cause));
        assertTrue(cause.getMessage().contains(unix.getPath().toString())
                && cause.getMessage().contains("use InetSocketAddress"), cause.getMessage());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void connectWithAnInetAddressOnAUnixChannelFailsAtOnceNamingIt(Combo combo) {
        if (!runnable(combo, ChannelType.UNIX_STREAM)) {
            return;
        }
        InetSocketAddress inet = new InetSocketAddress(loopback().getAddress(), 9);
        Throwable cause = failedConnect(combo, ChannelType.UNIX_STREAM, inet);
        assertInstanceOf(UnsupportedAddressTypeException.class, cause, String.valueOf(cause));
        assertTrue(cause.getMessage().contains(":9") && cause.getMessage().contains("use UnixDomainSocketAddress"),
                cause.getMessage());
    }

    private Channel bindUnixServer(Combo combo, UnixDomainSocketAddress address) {
        return bindServer(combo, ChannelType.UNIX_STREAM, address, new EchoHandler(), null);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void closingAUnixServerRemovesItsSocketFile(Combo combo) {
        if (!runnable(combo, ChannelType.UNIX_STREAM)) {
            return;
        }
        UnixDomainSocketAddress address = unixAddress();
        Channel server = bindUnixServer(combo, address);
        assertTrue(Files.exists(address.getPath()), "bind creates " + address.getPath());
        await(server.close());
        assertFalse(Files.exists(address.getPath()), "the closed server left its socket file " + address.getPath());
        // the path is free again for the next server
        Channel again = bindUnixServer(combo, address);
        closeAll(again);
        assertFalse(Files.exists(address.getPath()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void aUnixServerLeavesAFileThatReplacedItsSocketFileAlone(Combo combo) throws Exception {
        if (!runnable(combo, ChannelType.UNIX_STREAM)) {
            return;
        }
        UnixDomainSocketAddress address = unixAddress();
        Channel server = bindUnixServer(combo, address);
        Files.delete(address.getPath());
        Files.writeString(address.getPath(), "not the server's file");
        await(server.close());
        assertTrue(Files.exists(address.getPath()), "the server removed a file it did not create");
        Files.delete(address.getPath());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void bindingOverAStaleSocketFileFailsNamingTheFile(Combo combo) throws Exception {
        if (!runnable(combo, ChannelType.UNIX_STREAM)) {
            return;
        }
        UnixDomainSocketAddress address = unixAddress();
        try (ServerSocketChannel stale = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            stale.bind(address); // closing a java.nio listener leaves its socket file: a stale file
        }
        assertTrue(Files.exists(address.getPath()));
        Transport t = combo.serverTransport();
        Future<Channel> bind = new ServerBootstrap().transport(t).group(group(t)).channelType(ChannelType.UNIX_STREAM)
                .option(ChannelOption.ALLOCATOR, combo.allocator().allocator()).childHandler(new EchoHandler())
                .bind(address);
        Throwable cause = awaitDone(bind);
        assertNotNull(cause, "a bind over an existing socket file succeeded");
        String message = String.valueOf(cause.getMessage());
        assertTrue(message.contains(address.getPath().toString()) && message.contains("socket file")
                && message.contains("remove"), message);
        assertTrue(Files.exists(address.getPath()), "a failed bind must not remove the file that is in the way");
        Files.delete(address.getPath());
    }

    /**
     * bind(2) EADDRINUSE on a TCP port another listener holds, and on an abstract Unix name another socket holds
     * (where the transport has them): a {@link java.net.BindException} naming the address and what to do.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void aBindToAnAddressInUseFailsNamingItAndWhatToDo(Combo combo) throws Exception {
        if (!runnable(combo)) {
            return;
        }
        Transport t = combo.serverTransport();
        List<SocketAddress> taken = new ArrayList<>();
        try (ServerSocketChannel other = ServerSocketChannel.open()) {
            other.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            taken.add(other.getLocalAddress());
            Channel abstractHolder = null;
            if (hasAbstractNames(t)) {
                UnixAbstractAddress name = UnixAbstractAddress.of("conduit-conformance-inuse-"
                        + ProcessHandle.current().pid() + "-" + System.nanoTime());
                abstractHolder = bindServer(combo, ChannelType.UNIX_STREAM, name, new EchoHandler(), null);
                taken.add(name);
            }
            try {
                for (SocketAddress address : taken) {
                    ChannelType type = address instanceof InetSocketAddress ? ChannelType.TCP : ChannelType.UNIX_STREAM;
                    Throwable cause = awaitDone(new ServerBootstrap().transport(t).group(group(t)).channelType(type)
                            .childHandler(new EchoHandler()).bind(address));
                    assertNotNull(cause, "a second bind to " + address + " succeeded");
                    assertCausedBy(java.net.BindException.class, cause);
                    String message = String.valueOf(cause.getMessage());
                    assertTrue(message.contains(address.toString()) && message.contains("another socket is bound")
                            && message.contains("choose another address"), message);
                }
            } finally {
                closeAll(abstractHolder);
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void abstractUnixNamesWorkOnEpollAndFailAtOnceNamingTheAddressElsewhere(Combo combo) {
        if (!runnable(combo, ChannelType.UNIX_STREAM)) {
            return;
        }
        UnixAbstractAddress address = UnixAbstractAddress.of("conduit-conformance-" + ProcessHandle.current().pid()
                + "-" + System.nanoTime());
        Transport serverTransport = combo.serverTransport();
        Channel server = null;
        if (hasAbstractNames(serverTransport)) {
            server = bindServer(combo, ChannelType.UNIX_STREAM, address, new EchoHandler(), null);
            assertEquals(address, server.localAddress());
        } else {
            Future<Channel> bind = new ServerBootstrap().transport(serverTransport).group(group(serverTransport))
                    .channelType(ChannelType.UNIX_STREAM).childHandler(new EchoHandler()).bind(address);
            assertAbstractRejected(awaitDone(bind), address);
        }
        try {
            if (hasAbstractNames(combo.clientTransport())) {
                if (server != null) {
                    Channel client = connect(combo, ChannelType.UNIX_STREAM, address, new Recorder(), null);
                    assertEquals(address, client.remoteAddress());
                    closeAll(client);
                }
            } else {
                assertAbstractRejected(failedConnect(combo, ChannelType.UNIX_STREAM, address), address);
            }
        } finally {
            closeAll(server);
        }
    }
}
