package io.conduit.itest.jpms;

import io.conduit.buffer.Buffer;
import io.conduit.bootstrap.Bootstrap;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.ChannelInitializer;
import io.conduit.bootstrap.ServerBootstrap;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.transport.TransportSelection;
import io.conduit.transport.Transports;
import io.conduit.transport.spi.TransportProvider;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ServiceLoader;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs on the module path: prints one line per fact for {@code JpmsModulePathTest} to assert, in the form
 * {@code KEY value}:
 * <ul>
 *   <li>{@code CLASSPATH <java.class.path>} and {@code MODULE <name>} of this class, and {@code LAYER} with the
 *       boot layer's Conduit modules;</li>
 *   <li>{@code PROVIDER <name> <available|unavailable: cause>} per {@code ServiceLoader} provider;</li>
 *   <li>{@code ECHO <name> <what came back>} per available transport (TCP over loopback);</li>
 *   <li>{@code SELECTED <name>} from {@link Transports#selection()};</li>
 *   <li>{@code EPOLL_PROBE <available|unavailable: cause>} and {@code EPOLL_LOADED <how>}: the epoll module's
 *       own probe, read reflectively (the test opens {@code io.conduit.epoll} to this module), so the native
 *       library's loading from the fragment jar is checked even without an epoll provider.</li>
 * </ul>
 * Exits with status 0 after printing {@code DONE}; any failure propagates (non-zero exit).
 */
public final class EchoEveryTransport {

    private EchoEveryTransport() {
    }

    public static void main(String[] args) throws Exception {
        System.out.println("CLASSPATH " + System.getProperty("java.class.path", ""));
        System.out.println("MODULE " + EchoEveryTransport.class.getModule().getName());
        StringBuilder layer = new StringBuilder();
        ModuleLayer.boot().modules().stream().map(Module::getName).filter(n -> n.startsWith("io.conduit"))
                .sorted().forEach(n -> layer.append(' ').append(n));
        System.out.println("LAYER" + layer);
        System.out.println("HANDLER " + io.conduit.handler.codec.LengthFieldBasedFrameDecoder.class.getModule()
                .getName());

        for (TransportProvider provider : ServiceLoader.load(TransportProvider.class)) {
            boolean available = provider.availability().isAvailable();
            System.out.println("PROVIDER " + provider.name() + " " + (available ? "available"
                    : "unavailable: " + firstLine(provider.availability().unavailabilityCause())));
            if (available) {
                System.out.println("ECHO " + provider.name() + " " + echo(provider, "hello over " + provider.name()));
            }
        }
        TransportSelection selection = Transports.selection();
        System.out.println("SELECTED " + selection.selected().orElse("(none)"));

        ModuleLayer.boot().findModule("io.conduit.epoll").ifPresent(epoll -> {
            try {
                Class<?> facade = Class.forName(epoll, "io.conduit.epoll.Epoll");
                if (facade == null) {
                    throw new IllegalStateException("io.conduit.epoll.Epoll not found in module io.conduit.epoll");
                }
                Method isAvailable = facade.getDeclaredMethod("isAvailable");
                isAvailable.setAccessible(true);
                if ((Boolean) isAvailable.invoke(null)) {
                    Method loadedHow = facade.getDeclaredMethod("loadedHow");
                    loadedHow.setAccessible(true);
                    System.out.println("EPOLL_PROBE available");
                    System.out.println("EPOLL_LOADED " + loadedHow.invoke(null));
                } else {
                    Method cause = facade.getDeclaredMethod("unavailabilityCause");
                    cause.setAccessible(true);
                    System.out.println("EPOLL_PROBE unavailable: " + firstLine((Throwable) cause.invoke(null)));
                }
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("cannot read io.conduit.epoll.Epoll's probe reflectively (run with"
                        + " --add-opens io.conduit.epoll/io.conduit.epoll=io.conduit.itest.jpms): " + e, e);
            }
        });
        System.out.println("DONE");
    }

    private static String firstLine(Throwable t) {
        String s = String.valueOf(t);
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
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

    /** An echo server and a client on {@code provider}'s transport over loopback TCP; returns the reply. */
    private static String echo(TransportProvider provider, String text) throws Exception {
        var transport = provider.transport();
        try (EventLoopGroup group = transport.newEventLoopGroup(1)) {
            Channel server = new ServerBootstrap().transport(transport).group(group)
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
            Channel client = new Bootstrap().transport(transport).group(group).handler(new ChannelHandler() {
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
}
