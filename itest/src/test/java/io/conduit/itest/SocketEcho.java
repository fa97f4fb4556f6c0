package io.conduit.itest;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.bootstrap.ServerBootstrap;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.transport.ChannelType;
import io.conduit.transport.Transport;

/**
 * A TCP echo server on a Conduit transport inside the framework, exercised by plain {@link Socket} clients of the
 * test (the JDK's own sockets, not Conduit), over loopback: every byte sent is compared with the byte echoed.
 * Runs in the test probe.
 */
final class SocketEcho {

    /** Size of one round trip: the client writes a chunk and reads it back before the next one. */
    static final int CHUNK_BYTES = 8 * 1024;

    private SocketEcho() {
    }

    /** Echoes what it reads; shared by every accepted channel. */
    @ChannelHandler.Sharable
    static final class Echo implements ChannelHandler {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.writeAndFlush(msg);
        }
    }

    /** Binds a TCP echo listener of {@code transport} on {@code group} to an ephemeral loopback port (10 s bound). */
    static Channel bind(Transport transport, EventLoopGroup group) throws Exception {
        return new ServerBootstrap().transport(transport).group(group).channelType(ChannelType.TCP)
                .childHandler(new Echo())
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).get(10, TimeUnit.SECONDS);
    }

    /**
     * Connects {@code clients} sockets one after the other to {@code server} and sends each {@code chunks} chunks
     * of {@link #CHUNK_BYTES} pseudo-random bytes (fixed seed), reading every chunk back before the next is sent.
     *
     * @return the number of echoed bytes verified (clients × chunks × {@link #CHUNK_BYTES})
     * @throws AssertionError when an echoed byte differs
     * @throws IOException when a socket fails or a read waits more than 10 s
     */
    static long exchange(InetSocketAddress server, int clients, int chunks) throws IOException {
        Random random = new Random(42);
        byte[] sent = new byte[CHUNK_BYTES];
        byte[] echoed = new byte[CHUNK_BYTES];
        long verified = 0;
        for (int c = 0; c < clients; c++) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getPort()), 10_000);
                s.setSoTimeout(10_000);
                OutputStream out = s.getOutputStream();
                InputStream in = s.getInputStream();
                for (int i = 0; i < chunks; i++) {
                    random.nextBytes(sent);
                    out.write(sent);
                    out.flush();
                    int n = 0;
                    while (n < echoed.length) {
                        int r = in.read(echoed, n, echoed.length - n);
                        assertTrue("end of stream after " + n + " bytes of chunk " + i + " of client " + c, r >= 0);
                        n += r;
                    }
                    assertArrayEquals("chunk " + i + " of client " + c, sent, echoed);
                    verified += n;
                }
            }
        }
        return verified;
    }
}
