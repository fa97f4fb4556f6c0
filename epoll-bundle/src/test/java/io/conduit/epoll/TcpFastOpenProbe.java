package io.conduit.epoll;

import io.conduit.buffer.Buffer;
import io.conduit.bootstrap.Bootstrap;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.ChannelOption;
import io.conduit.bootstrap.ServerBootstrap;
import io.conduit.transport.ChannelType;
import io.conduit.transport.spi.IoEventLoopGroup;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Child-JVM side of {@link TcpFastOpenTest}, run inside a network namespace of its own with
 * {@code net.ipv4.tcp_fastopen=3}: an epoll server with {@code TCP_FASTOPEN} and three epoll clients with
 * {@code TCP_FASTOPEN_CONNECT} that each send a line and wait for its echo. The first connection fetches the
 * cookie; later ones carry their data in the SYN. Prints the namespace's {@code TcpExt} counters
 * {@code TCPFastOpenActive} and {@code TCPFastOpenPassive} and exits 0 when both counted at least one.
 */
public final class TcpFastOpenProbe {

    private TcpFastOpenProbe() {
    }

    @ChannelHandler.Sharable
    private static final class Echo implements ChannelHandler {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.writeAndFlush(msg);
        }
    }

    public static void main(String[] args) throws Exception {
        EpollTransport t = EpollTestSupport.transport();
        IoEventLoopGroup group = EpollTestSupport.group(1);
        try {
            Channel server = EpollTestSupport.await(new ServerBootstrap().transport(t).group(group)
                    .channelType(ChannelType.TCP).option(ChannelOption.TCP_FASTOPEN, 16)
                    .childHandler(new Echo()).bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)));
            for (int i = 0; i < 3; i++) {
                byte[] line = ("hello " + i).getBytes(StandardCharsets.US_ASCII);
                CompletableFuture<String> echo = new CompletableFuture<>();
                Channel c = EpollTestSupport.await(new Bootstrap().transport(t).group(group).channelType(ChannelType.TCP)
                        .option(ChannelOption.TCP_FASTOPEN_CONNECT, true).handler(new ChannelHandler() {
                            @Override
                            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                try (Buffer b = (Buffer) msg) {
                                    byte[] a = new byte[b.readableBytes()];
                                    b.readBytes(a);
                                    echo.complete(new String(a, StandardCharsets.US_ASCII));
                                }
                            }
                        }).connect(server.localAddress()));
                c.writeAndFlush(c.alloc().buffer(line.length).writeBytes(line));
                String got = echo.get(10, TimeUnit.SECONDS);
                if (!got.equals("hello " + i)) {
                    System.out.println("wrong echo: " + got);
                    System.exit(3);
                }
                c.close().await(5, TimeUnit.SECONDS);
            }
            server.close().await(5, TimeUnit.SECONDS);
        } finally {
            EpollTestSupport.close(group);
        }
        long active = tcpExt("TCPFastOpenActive");
        long passive = tcpExt("TCPFastOpenPassive");
        System.out.println("TCPFastOpenActive=" + active + " TCPFastOpenPassive=" + passive);
        System.exit(active >= 1 && passive >= 1 ? 0 : 2);
    }

    /** @return a {@code TcpExt} counter of {@code /proc/net/netstat} (header line, then value line) */
    static long tcpExt(String name) throws Exception {
        List<String> lines = Files.readAllLines(Path.of("/proc/net/netstat"));
        for (int i = 0; i + 1 < lines.size(); i++) {
            if (lines.get(i).startsWith("TcpExt:") && lines.get(i + 1).startsWith("TcpExt:")) {
                String[] names = lines.get(i).split("\\s+");
                String[] values = lines.get(i + 1).split("\\s+");
                for (int j = 1; j < names.length; j++) {
                    if (names[j].equals(name)) {
                        return Long.parseLong(values[j]);
                    }
                }
            }
        }
        throw new IllegalStateException("no TcpExt counter " + name + " in /proc/net/netstat");
    }
}
