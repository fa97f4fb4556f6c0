package io.conduit.testsuite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.conduit.buffer.Buffer;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.SocketChannel;
import io.conduit.channel.TcpInfo;
import io.conduit.transport.ChannelType;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link SocketChannel#tcpInfo()}: on a transport that reads {@code TCP_INFO} (epoll) the snapshot of an open
 * connection says what {@code ss -ti} (iproute2, which reads the same kernel structure through sock_diag) says about
 * it; after close it is refused. A transport that cannot read it (nio, kqueue) refuses with a hint to use epoll.
 */
public abstract class TcpInfoTest extends AbstractTransportTest {

    /** @return whether the transport named {@code transportName} reads {@code TCP_INFO}: epoll, under any name */
    protected boolean readsTcpInfo(String transportName) {
        return transportName.startsWith("epoll");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void anOpenConnectionsTcpInfoIsWhatTheKernelReports(Combo combo) throws Exception {
        if (!runnable(combo)) {
            return;
        }
        Channel server = bindServer(combo, ChannelType.TCP, loopback(), new EchoHandler(), null);
        Channel[] client = new Channel[1];
        try {
            int size = 256 * 1024;
            Receiver receiver = new Receiver(size);
            client[0] = connect(combo, ChannelType.TCP, server.localAddress(), receiver, null);
            Buffer data = client[0].alloc().buffer(size);
            data.writeBytes(randomBytes(size, 7));
            client[0].writeAndFlush(data);
            await(receiver.done, "the echo of " + size + " bytes");
            SocketChannel ch = (SocketChannel) client[0];
            if (!readsTcpInfo(ch.transportName())) {
                UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, ch::tcpInfo);
                assertTrue(e.getMessage().contains("TCP_INFO") && e.getMessage().contains("epoll"), e.getMessage());
                return;
            }
            TcpInfo info = ch.tcpInfo();
            assertEquals(1, info.state(), info.toString());
            assertEquals("ESTABLISHED", info.stateName());
            assertTrue(info.rtt() > 0 && info.rto() >= 200_000, "a round trip was measured: " + info);
            assertTrue(info.sndMss() > 0 && info.pmtu() > 0 && info.sndCwnd() > 0, info.toString());
            assertEquals(0, info.unacked(), "everything sent was echoed, so acknowledged: " + info);
            String ss = ss(ch.localAddress().getPort());
            if (ss != null) {
                assertEquals(field(ss, "mss"), info.sndMss(), ss + " vs " + info);
                assertEquals(field(ss, "pmtu"), info.pmtu(), ss + " vs " + info);
                assertEquals(field(ss, "cwnd"), info.sndCwnd(), ss + " vs " + info);
            }
            await(ch.close());
            assertThrows(IllegalStateException.class, ch::tcpInfo);
        } finally {
            closeAll(client[0], server);
        }
    }

    /** Completes once {@code expected} bytes came back. */
    private static final class Receiver implements ChannelHandler {
        private final int expected;
        private int received;
        final java.util.concurrent.CompletableFuture<Void> done = new java.util.concurrent.CompletableFuture<>();

        Receiver(int expected) {
            this.expected = expected;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            Buffer b = (Buffer) msg;
            received += b.readableBytes();
            b.release();
            if (received >= expected) {
                done.complete(null);
            }
        }
    }

    /** @return {@code ss -tinH} for the connection from local port {@code port}, or null when ss is missing */
    private static String ss(int port) throws IOException, InterruptedException {
        Path ss = RequiredTools.optional("ss", "apt-get install -y iproute2");
        if (ss == null) {
            return null;
        }
        Process p = new ProcessBuilder(ss.toString(), "-tinH", "state", "established", "( sport = :" + port + " )")
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(10, TimeUnit.SECONDS), "ss did not finish");
        assertEquals(0, p.exitValue(), out);
        return out;
    }

    private static long field(String ss, String name) {
        Matcher m = Pattern.compile("(?<![a-z_])" + name + ":(\\d+)").matcher(ss);
        assertTrue(m.find(), "no " + name + ": in " + ss);
        return Long.parseLong(m.group(1));
    }
}
