package io.conduit.testsuite;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.bootstrap.Bootstrap;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.DomainSocketChannel;
import io.conduit.channel.FileRegion;
import io.conduit.channel.PeerCredentials;
import io.conduit.channel.UnixAbstractAddress;
import io.conduit.concurrent.Future;
import io.conduit.transport.ChannelType;
import io.conduit.transport.Transport;

import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What a Unix-domain stream connection has beyond bytes, on each side of a permutation: the peer's credentials
 * ({@code SO_PEERCRED}, native transports; a transport without them refuses naming itself), the addresses each side
 * reports (a bound client's path on the server side, unnamed otherwise), Linux abstract names where both transports
 * have them, a file region sent over the connection, TCP-only options, which a Unix channel does not apply, and a
 * connect to a full accept queue, which fails at once.
 */
public abstract class UnixStreamTest extends AbstractTransportTest {

    /** the credentials of this JVM's process: its pid, effective uid and gid ({@code /proc/self/status}) */
    private static PeerCredentials thisProcess() throws IOException {
        int uid = -1;
        int gid = -1;
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            String[] f = line.split("\\s+");
            if (f[0].equals("Uid:")) {
                uid = Integer.parseInt(f[2]);
            } else if (f[0].equals("Gid:")) {
                gid = Integer.parseInt(f[2]);
            }
        }
        return new PeerCredentials((int) ProcessHandle.current().pid(), uid, gid);
    }

    /** Asserts the peer credentials {@code channel} of {@code transport} reports: this process, or a refusal. */
    private static void assertPeerCredentials(Transport transport, Channel channel, PeerCredentials expected,
            String side) {
        DomainSocketChannel d = (DomainSocketChannel) channel;
        if (transport.isNative()) {
            assertEquals(expected, d.peerCredentials(), side + " (" + transport.name() + ")");
        } else {
            UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, d::peerCredentials,
                    side + ": " + transport.name() + " has no SO_PEERCRED");
            assertTrue(e.getMessage().contains(transport.name()), e.getMessage());
        }
    }

    /** A child handler that queues each accepted channel once active. */
    private static ChannelHandler activeChild(BlockingQueue<Channel> accepted) {
        return new Accepted(accepted);
    }

    @ChannelHandler.Sharable
    private record Accepted(BlockingQueue<Channel> queue) implements ChannelHandler {
        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            queue.add(ctx.channel());
            ctx.fireChannelActive();
        }
    }

    private static Channel next(BlockingQueue<Channel> accepted) throws InterruptedException {
        Channel c = accepted.poll(WAIT_SECONDS, TimeUnit.SECONDS);
        assertNotNull(c, "no connection accepted within " + WAIT_SECONDS + " s");
        return c;
    }

    /** A Unix listener of the server transport and one connection to it from the client transport. */
    private record Connection(Channel server, Channel client, Channel accepted) implements AutoCloseable {
        @Override
        public void close() {
            closeAll(client, server);
        }
    }

    private Connection connection(Combo combo) throws InterruptedException {
        BlockingQueue<Channel> accepted = new LinkedBlockingQueue<>();
        Channel server = bindServer(combo, ChannelType.UNIX_STREAM, unixAddress(), activeChild(accepted), null);
        Channel client = null;
        try {
            client = connect(combo, ChannelType.UNIX_STREAM, server.localAddress(), new Recorder(), null);
            return new Connection(server, client, next(accepted));
        } catch (RuntimeException | InterruptedException | Error e) {
            closeAll(client, server);
            throw e;
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void bothSidesReadTheirPeersCredentials(Combo combo) throws Exception {
        if (!runnable(combo, ChannelType.UNIX_STREAM)) {
            return;
        }
        try (Connection c = connection(combo)) {
            PeerCredentials me = thisProcess();
            assertPeerCredentials(combo.clientTransport(), c.client(), me, "the client's peer");
            assertPeerCredentials(combo.serverTransport(), c.accepted(), me, "the accepted channel's peer");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void eachSideReportsTheOthersBoundNameOrUnnamed(Combo combo) throws Exception {
        if (!runnable(combo, ChannelType.UNIX_STREAM)) {
            return;
        }
        UnixDomainSocketAddress serverPath = unixAddress();
        UnixDomainSocketAddress clientPath = unixAddress();
        UnixDomainSocketAddress unnamed = UnixDomainSocketAddress.of("");
        BlockingQueue<Channel> accepted = new LinkedBlockingQueue<>();
        Channel server = bindServer(combo, ChannelType.UNIX_STREAM, serverPath, activeChild(accepted), null);
        Channel anonymous = connect(combo, ChannelType.UNIX_STREAM, serverPath, new Recorder(), null);
        Channel bound = null;
        try {
            assertEquals(serverPath, server.localAddress());
            assertEquals(serverPath, anonymous.remoteAddress());
            assertEquals(unnamed, anonymous.localAddress(), "a client that bound nothing is unnamed");
            Channel child = next(accepted);
            assertEquals(serverPath, child.localAddress());
            assertEquals(unnamed, child.remoteAddress(), "the accepted side of an unnamed client");

            Transport t = combo.clientTransport();
            bound = await(new Bootstrap().transport(t).group(group(t)).channelType(ChannelType.UNIX_STREAM)
                    .handler(new Recorder()).connect(serverPath, clientPath));
            assertEquals(clientPath, bound.localAddress());
            assertTrue(Files.exists(clientPath.getPath()), "a bound client has its socket file");
            assertEquals(clientPath, next(accepted).remoteAddress(), "the accepted side reports the client's path");
        } finally {
            closeAll(bound, anonymous, server);
            Files.deleteIfExists(clientPath.getPath());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void anAbstractNameEchoesAndIsReportedWhereBothTransportsHaveThem(Combo combo) throws Exception {
        if (!runnable(combo, ChannelType.UNIX_STREAM)) {
            return;
        }
        UnixAbstractAddress name = UnixAbstractAddress.of("conduit-unix-" + ProcessHandle.current().pid() + "-"
                + System.nanoTime());
        if (!hasAbstractNames(combo.serverTransport()) || !hasAbstractNames(combo.clientTransport())) {
            Transport without = hasAbstractNames(combo.serverTransport()) ? combo.clientTransport()
                    : combo.serverTransport();
            assertFalse(without.supportsAddress(name), without.name() + " says it has no abstract names");
            return; // SocketAddressTest asserts how such a transport refuses them
        }
        BlockingQueue<Channel> accepted = new LinkedBlockingQueue<>();
        Channel server = bindServer(combo, ChannelType.UNIX_STREAM, name, new ChannelHandler() {
            @Override
            public void channelActive(ChannelHandlerContext ctx) {
                accepted.add(ctx.channel());
            }

            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ctx.writeAndFlush(msg);
            }
        }, null);
        Recorder received = new Recorder();
        Channel client = connect(combo, ChannelType.UNIX_STREAM, name, received, null);
        try {
            assertEquals(name, server.localAddress());
            assertEquals(name, client.remoteAddress());
            assertEquals(name, next(accepted).localAddress());
            byte[] payload = "over the abstract namespace".getBytes(StandardCharsets.UTF_8);
            await(client.writeAndFlush(client.alloc().buffer(payload.length).writeBytes(payload)));
            eventually("the echo", () -> received.byteCount() >= payload.length);
            assertArrayEquals(payload, received.bytes());
        } finally {
            closeAll(client, server);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void aFileRegionCrossesAUnixConnectionByteExact(Combo combo) throws Exception {
        if (!runnable(combo, ChannelType.UNIX_STREAM)) {
            return;
        }
        byte[] content = randomBytes(1_000_000 + 77, 20);
        Path file = Files.createTempFile("conduit-region", ".bin");
        try {
            Files.write(file, content);
            int skip = 333;
            CompletableFuture<Future<Void>> sent = new CompletableFuture<>();
            Channel server = bindServer(combo, ChannelType.UNIX_STREAM, unixAddress(), new ChannelHandler() {
                @Override
                public void channelActive(ChannelHandlerContext ctx) throws Exception {
                    Future<Void> f = ctx.writeAndFlush(FileRegion.of(file, skip, content.length - skip));
                    sent.complete(f);
                    f.addListener(x -> ctx.close());
                }
            }, null);
            Recorder received = new Recorder();
            Channel client = connect(combo, ChannelType.UNIX_STREAM, server.localAddress(), received, null);
            try {
                await(await(sent, "the region's write"));
                int expected = content.length - skip;
                eventually("the region (" + received.byteCount() + " of " + expected + " bytes)",
                        () -> received.byteCount() >= expected);
                assertArrayEquals(Arrays.copyOfRange(content, skip, content.length), received.bytes());
            } finally {
                closeAll(client, server);
            }
        } finally {
            Files.deleteIfExists(file);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void tcpOptionsDoNotApplyToAUnixChannelButSocketBuffersDo(Combo combo) throws InterruptedException {
        if (!runnable(combo, ChannelType.UNIX_STREAM)) {
            return;
        }
        try (Connection pair = connection(combo)) {
            for (Channel c : new Channel[] {pair.client(), pair.accepted()}) {
                assertFalse(c.config().setOption(ChannelOption.TCP_NODELAY, true), "TCP_NODELAY on " + c);
                assertFalse(c.config().setOption(ChannelOption.SO_KEEPALIVE, true), "SO_KEEPALIVE on " + c);
                assertTrue(c.config().setOption(ChannelOption.SO_SNDBUF, 64 * 1024), "SO_SNDBUF on " + c);
                assertTrue(c.config().getOption(ChannelOption.SO_SNDBUF) >= 64 * 1024, "SO_SNDBUF read back on " + c);
            }
            assertFalse(pair.server().config().setOption(ChannelOption.SO_REUSEADDR, true),
                    "SO_REUSEADDR on a Unix listener");
        }
    }

    /**
     * A Unix-domain connect does not wait for room in a full accept queue: the kernel refuses it at once
     * ({@code EAGAIN}, {@code unix(7)}), and the channel's connect fails with that before its connect timeout, as on
     * epoll, where {@code connect(2)} answers it directly.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void aConnectToAFullAcceptQueueFailsAtOnce(Combo combo) {
        if (!runnable(combo, ChannelType.UNIX_STREAM)) {
            return;
        }
        Channel server = bindServer(combo, ChannelType.UNIX_STREAM, unixAddress(), new EchoHandler(),
                b -> b.option(ChannelOption.AUTO_READ, false).option(ChannelOption.SO_BACKLOG, 1));
        List<Channel> clients = new ArrayList<>();
        try {
            Throwable refused = null;
            long started = 0;
            for (int i = 0; i < 10 && refused == null; i++) {
                started = System.nanoTime();
                Future<Channel> f = connectFuture(combo, ChannelType.UNIX_STREAM, server.localAddress(),
                        new Recorder(), b -> b.option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 10_000));
                refused = awaitDone(f);
                if (refused == null) {
                    clients.add(f.getNow());
                }
            }
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            assertNotNull(refused, "a listener with a backlog of 1 that accepts nothing refused one of 10 connects");
            assertTrue(refused instanceof IOException, String.valueOf(refused));
            assertTrue(millis < 5_000, "refused in " + millis + " ms, not after the 10 s connect timeout");
            assertTrue(clients.size() >= 1, "the queue took at least one connection first: " + clients.size());
        } finally {
            closeAll(clients.toArray(Channel[]::new));
            closeAll(server);
        }
    }
}
