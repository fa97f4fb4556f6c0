package io.conduit.examples;

import io.conduit.buffer.Buffer;
import io.conduit.bootstrap.Bootstrap;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.ChannelInitializer;
import io.conduit.bootstrap.ServerBootstrap;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.transport.Transport;
import io.conduit.transport.spi.TransportProvider;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ServiceLoader;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A minimal echo server and client on the {@code nio} transport (referenced from the README):
 * {@code mvn -q -pl nio-fallback-bundle test -Dtest=EchoExampleTest} runs it.
 */
public final class EchoExample {

    private EchoExample() {
    }

    /** Writes back what it reads. */
    @ChannelHandler.Sharable
    static final class Echo implements ChannelHandler {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.write(msg);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }
    }

    /** Starts an echo server, sends {@code text} from a client and returns what came back. */
    public static String echo(String text) throws Exception {
        Transport nio = ServiceLoader.load(TransportProvider.class).stream().map(ServiceLoader.Provider::get)
                .filter(p -> p.name().equals("nio")).findFirst().orElseThrow().transport();
        try (EventLoopGroup group = nio.newEventLoopGroup(1)) {
            Channel server = new ServerBootstrap().transport(nio).group(group)
                    .childHandler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast(new Echo());
                        }
                    })
                    .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().getNow();
            byte[] sent = text.getBytes(StandardCharsets.UTF_8);
            CompletableFuture<String> reply = new CompletableFuture<>();
            StringBuilder received = new StringBuilder();
            Channel client = new Bootstrap().transport(nio).group(group).handler(new ChannelHandler() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    try (Buffer b = (Buffer) msg) {
                        received.append(new String(b.toByteArray(), StandardCharsets.UTF_8));
                    }
                    if (received.length() >= text.length()) {
                        reply.complete(received.toString());
                    }
                }
            }).connect(server.localAddress()).sync().getNow();
            client.writeAndFlush(client.alloc().buffer(sent.length).writeBytes(sent));
            String result = reply.get(10, TimeUnit.SECONDS);
            client.close().sync();
            server.close().sync();
            return result;
        }
    }

    public static void main(String[] args) throws Exception {
        System.out.println(echo(args.length > 0 ? String.join(" ", args) : "hello, conduit"));
    }
}
