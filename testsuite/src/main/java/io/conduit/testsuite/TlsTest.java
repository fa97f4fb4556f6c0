package io.conduit.testsuite;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.conduit.buffer.Buffer;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.ChannelInitializer;
import io.conduit.channel.ChannelOption;
import io.conduit.handler.ssl.ClientAuth;
import io.conduit.handler.ssl.TlsCloseNotifyEvent;
import io.conduit.handler.ssl.TlsContext;
import io.conduit.handler.ssl.TlsHandler;
import io.conduit.handler.ssl.TlsHandshakeCompletionEvent;
import io.conduit.handler.ssl.TlsHandshakeResult;
import io.conduit.transport.ChannelType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The handler bundle's {@link TlsHandler} over real loopback TCP connections of the transport under test, with
 * certificates made by {@code openssl}: an echo with mutual TLS, ALPN and SNI, session resumption on a second
 * connection and {@code close_notify}; a large transfer byte-exact; a peer that stops reading stops the writer; and
 * {@code openssl s_client} as a real client of a Conduit TLS echo.
 */
public abstract class TlsTest extends AbstractTransportTest {

    private static final String ALPN = "echo/1";
    private TlsCertificates certs;
    private TlsContext serverContext;

    @BeforeAll
    void makeCertificates() throws Exception {
        certs = TlsCertificates.make();
        serverContext = TlsContext.forServer(certs.serverCert(), certs.serverKey(), null).trust(certs.ca())
                .clientAuth(ClientAuth.OPTIONAL).alpn(ALPN).build();
    }

    /** Records, for the test thread, what a channel's handler after TLS sees: events, bytes, inactivity. */
    private static final class Seen implements ChannelHandler {
        final BlockingQueue<Object> events = new LinkedBlockingQueue<>();
        final AtomicLong bytes = new AtomicLong();
        final ByteArrayOutputStream kept = new ByteArrayOutputStream();
        final MessageDigest sha256;
        final boolean echo;
        final boolean keep;
        volatile Channel channel;

        Seen(boolean echo, boolean keep) {
            this.echo = echo;
            this.keep = keep;
            try {
                sha256 = MessageDigest.getInstance("SHA-256");
            } catch (java.security.NoSuchAlgorithmException e) {
                throw new AssertionError(e);
            }
        }

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            channel = ctx.channel();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            Buffer b = (Buffer) msg;
            if (keep) {
                synchronized (kept) {
                    kept.writeBytes(b.toByteArray());
                }
            } else if (!echo) {
                synchronized (sha256) {
                    sha256.update(b.nioBuffer(b.readerIndex(), b.readableBytes()));
                }
            }
            bytes.addAndGet(b.readableBytes());
            if (echo) {
                ctx.write(msg);
            } else {
                b.release();
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
            events.add(event);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            events.add("inactive");
        }

        TlsHandshakeResult handshake() throws InterruptedException {
            Object e = events.poll(WAIT_SECONDS, TimeUnit.SECONDS);
            assertTrue(e instanceof TlsHandshakeCompletionEvent, "expected the handshake event, got " + e);
            TlsHandshakeCompletionEvent h = (TlsHandshakeCompletionEvent) e;
            assertTrue(h.isSuccess(), String.valueOf(h.cause()));
            return h.result();
        }

        byte[] digest() {
            synchronized (sha256) {
                return sha256.digest();
            }
        }
    }

    private Channel tlsServer(Combo combo, BlockingQueue<Seen> accepted, boolean echo) {
        return bindServer(combo, ChannelType.TCP, loopback(), new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                Seen seen = new Seen(echo, false);
                ch.pipeline().addLast(serverContext.newServerHandler(), seen);
                accepted.add(seen);
            }
        }, null);
    }

    private Channel tlsClient(Combo combo, Channel listener, TlsContext context, Seen seen, boolean autoRead) {
        int port = ((InetSocketAddress) listener.localAddress()).getPort();
        return connect(combo, ChannelType.TCP, listener.localAddress(), new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(context.newClientHandler("localhost", port), seen);
            }
        }, b -> b.option(ChannelOption.AUTO_READ, autoRead));
    }

    private TlsContext.Builder client() {
        return TlsContext.forClient().trust(certs.ca()).alpn(ALPN);
    }

    private static Seen next(BlockingQueue<Seen> accepted) throws InterruptedException {
        Seen s = accepted.poll(WAIT_SECONDS, TimeUnit.SECONDS);
        assertNotNull(s, "no connection accepted within " + WAIT_SECONDS + " s");
        return s;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void mutualTlsEchoThenResumptionThenCloseNotify(Combo combo) throws Exception {
        if (!runnable(combo)) {
            return;
        }
        BlockingQueue<Seen> accepted = new LinkedBlockingQueue<>();
        Channel listener = tlsServer(combo, accepted, true);
        TlsContext clientContext = client().certificate(certs.clientCert(), certs.clientKey(), null).build();
        Seen client = new Seen(false, true);
        Channel ch = tlsClient(combo, listener, clientContext, client, true);
        Channel again = null;
        try {
            TlsHandshakeResult c = client.handshake();
            Seen server = next(accepted);
            TlsHandshakeResult s = server.handshake();
            assertEquals("TLSv1.3", c.protocol());
            assertEquals("CN=localhost", c.peerSubject());
            assertEquals(ALPN, c.applicationProtocol());
            assertEquals("CN=device-1", s.peerSubject(), "the server verified the client's certificate");
            assertEquals("localhost", s.serverName());
            assertEquals(ALPN, s.applicationProtocol());
            assertFalse(c.resumed());

            int size = combo.allocator() == AllocatorKind.ONE_BYTE_READS ? 20_000 : 1 << 20;
            byte[] data = randomBytes(size, 7);
            for (int from = 0, step = 1; from < size; step = step * 13 % 40_009 + 1) {
                int n = Math.min(step, size - from);
                Buffer piece = ch.alloc().buffer(n);
                piece.writeBytes(data, from, n);
                ch.write(piece);
                if (step % 3 == 0) {
                    ch.flush();
                }
                from += n;
            }
            ch.flush();
            eventually("the echo of " + size + " bytes", () -> client.bytes.get() >= size);
            synchronized (client.kept) {
                assertArrayEquals(data, client.kept.toByteArray());
            }

            Seen second = new Seen(false, true);
            again = tlsClient(combo, listener, clientContext, second, true);
            assertTrue(second.handshake().resumed(), "the second connection resumed the session");
            assertTrue(next(accepted).handshake().resumed());

            await(ch.close());
            assertEquals(TlsCloseNotifyEvent.INSTANCE, server.events.poll(WAIT_SECONDS, TimeUnit.SECONDS),
                    "the server got close_notify");
            assertEquals("inactive", server.events.poll(WAIT_SECONDS, TimeUnit.SECONDS), "and closed its side");
        } finally {
            closeAll(ch, again, listener);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void aLargeTransferArrivesByteExact(Combo combo) throws Exception {
        if (!runnable(combo)) {
            return;
        }
        boolean oneByteReads = combo.allocator() == AllocatorKind.ONE_BYTE_READS;
        // 64 MiB; 128 KiB when every read is one byte
        transferByteExact(combo, oneByteReads ? 64 * 1024 : 1 << 20, oneByteReads ? 2 : 64);
    }

    /** 1 GiB through TLS, SHA-256 equal on both sides; once per transport (client and server alike, pooled). */
    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void oneGibibyteArrivesByteExact(Combo combo) throws Exception {
        if (!runnable(combo) || combo.server() != combo.client() || combo.allocator() != AllocatorKind.POOLED) {
            return;
        }
        transferByteExact(combo, 1 << 20, 1024);
    }

    /** Writes {@code chunks} random chunks of {@code chunk} bytes to a TLS server, which digests what it decrypts. */
    private void transferByteExact(Combo combo, int chunk, int chunks) throws Exception {
        BlockingQueue<Seen> accepted = new LinkedBlockingQueue<>();
        Channel listener = tlsServer(combo, accepted, false);
        Channel ch = tlsClient(combo, listener, client().build(), new Seen(false, false), true);
        try {
            MessageDigest sent = MessageDigest.getInstance("SHA-256");
            Random random = new Random(11);
            byte[] bytes = new byte[chunk];
            io.conduit.concurrent.Future<Void> last = null;
            for (int i = 0; i < chunks; i++) {
                random.nextBytes(bytes);
                sent.update(bytes);
                Buffer b = ch.alloc().buffer(chunk);
                b.writeBytes(bytes);
                last = ch.writeAndFlush(b);
                if (!ch.isWritable()) {
                    awaitDone(last);   // the application's side of back-pressure: wait until the bytes are out
                }
            }
            await(last);
            Seen server = next(accepted);
            long total = (long) chunk * chunks;
            eventually(total + " bytes received", () -> server.bytes.get() >= total);
            assertEquals(total, server.bytes.get());
            assertArrayEquals(sent.digest(), server.digest(), "SHA-256 of what arrived");
        } finally {
            closeAll(ch, listener);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void aPeerThatStopsReadingStopsTheWriter(Combo combo) throws Exception {
        if (!runnable(combo) || combo.allocator() == AllocatorKind.ONE_BYTE_READS) {
            return;   // one-byte reads are for the reading side; 32 MiB that way would take minutes
        }
        BlockingQueue<Seen> accepted = new LinkedBlockingQueue<>();
        Channel listener = bindServer(combo, ChannelType.TCP, loopback(), new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                Seen seen = new Seen(false, false);
                ch.pipeline().addLast(serverContext.newServerHandler(), seen);
                accepted.add(seen);
            }
        }, null);
        Seen client = new Seen(false, false);
        Channel ch = tlsClient(combo, listener, client().build(), client, false);
        try {
            client.handshake();   // with AUTO_READ off: the handler reads what the handshake needs
            Seen server = next(accepted);
            server.handshake();
            Channel serverChannel = server.channel;
            int chunk = 64 * 1024;
            int chunks = 512;   // 32 MiB: far more than the kernel's socket buffers hold
            AtomicLong written = new AtomicLong();
            serverChannel.eventLoop().execute(() -> {
                for (int i = 0; i < chunks; i++) {
                    Buffer b = serverChannel.alloc().buffer(chunk);
                    b.writeBytes(new byte[chunk]);
                    serverChannel.writeAndFlush(b).addListener(f -> {
                        if (f.isSuccess()) {
                            written.addAndGet(chunk);
                        }
                    });
                }
            });
            // The writer stops once the socket buffers are full: completions stop growing. A loaded machine gets
            // there later than a fixed half second (a CI run still completed writes between 500 and 800 ms).
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            long stalled = written.get();
            while (true) {
                Thread.sleep(300);
                long now = written.get();
                if (now == stalled && now > 0) {
                    break;
                }
                assertTrue(System.nanoTime() - deadline < 0, "writes still complete after 20 s with a peer that does "
                        + "not read: " + now + " bytes");
                stalled = now;
            }
            assertTrue(stalled < chunks * (long) chunk / 2, "at most the socket buffers' worth completed: " + stalled);
            assertFalse(serverChannel.isWritable(), "the writer sees the channel unwritable");

            ch.config().setAutoRead(true);
            ch.read();
            long total = (long) chunk * chunks;
            eventually("all " + total + " bytes read", () -> client.bytes.get() >= total);
            eventually("every write completed", () -> written.get() == total);
        } finally {
            closeAll(ch, listener);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void opensslSClientTalksToAConduitTlsEcho(Combo combo) throws Exception {
        if (!runnable(combo) || combo.allocator() != AllocatorKind.POOLED) {
            return;   // the client is openssl: one run per server transport is enough
        }
        BlockingQueue<Seen> accepted = new LinkedBlockingQueue<>();
        Channel listener = tlsServer(combo, accepted, true);
        try {
            int port = ((InetSocketAddress) listener.localAddress()).getPort();
            Process p = new ProcessBuilder("openssl", "s_client", "-connect", "127.0.0.1:" + port,
                    "-servername", "localhost", "-alpn", ALPN, "-CAfile", certs.ca().toString(),
                    "-cert", certs.clientCert().toString(), "-key", certs.clientKey().toString(),
                    "-verify_return_error", "-ign_eof").redirectErrorStream(true).start();
            Seen server;
            String output;
            try {
                server = next(accepted);
                TlsHandshakeResult s = server.handshake();
                assertEquals("CN=device-1", s.peerSubject());
                assertEquals("localhost", s.serverName());
                assertEquals(ALPN, s.applicationProtocol());
                assertEquals("TLSv1.3", s.protocol());
                try (OutputStream in = p.getOutputStream()) {
                    in.write("hello over tls\n".getBytes(StandardCharsets.US_ASCII));
                }
                eventually("the line echoed", () -> server.bytes.get() >= 15);
                await(server.channel.close());   // close_notify, then the socket: s_client ends
                assertTrue(p.waitFor(WAIT_SECONDS, TimeUnit.SECONDS), "openssl s_client ends when the server closes");
                output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } finally {
                p.destroyForcibly();
            }
            assertTrue(output.contains("hello over tls"), output);
            assertTrue(output.contains("Verify return code: 0 (ok)"), output);
            assertTrue(output.contains("ALPN protocol: " + ALPN), output);
        } catch (IOException e) {
            throw new AssertionError("cannot run openssl: " + e, e);
        } finally {
            closeAll(listener);
        }
    }

}
