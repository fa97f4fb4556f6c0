package io.conduit.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.options;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import javax.inject.Inject;

import io.conduit.buffer.Buffer;
import io.conduit.bootstrap.Bootstrap;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.ChannelInitializer;
import io.conduit.bootstrap.ServerBootstrap;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.handler.codec.LengthFieldBasedFrameDecoder;
import io.conduit.handler.codec.LengthFieldPrepender;
import io.conduit.transport.ChannelType;
import io.conduit.transport.Transport;
import io.conduit.transport.Transports;
import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.FrameworkUtil;
import org.osgi.framework.wiring.BundleWire;
import org.osgi.framework.wiring.BundleWiring;

/**
 * The handler bundle in a framework (Felix and Equinox): it resolves against the API bundle alone, exports its
 * packages, and a length-field framed echo over loopback works with its classes loaded from the bundle.
 */
@RunWith(PaxExam.class)
public class HandlerBundleTest {

    @Inject
    private BundleContext context;

    @Configuration
    public Option[] config() {
        return options(ItestOptions.base(), ItestOptions.ours("conduit.itest.nioJar"),
                ItestOptions.ours("conduit.itest.handlerJar"));
    }

    @Before
    public void allBundlesStarted() {
        Osgi.assertAllBundlesActive(context);
    }

    @Test
    public void theBundleWiresToTheApiOnlyAndServesItsClasses() {
        Bundle handler = Osgi.bundle(context, "io.conduit.handler");
        BundleWiring wiring = handler.adapt(BundleWiring.class);
        for (BundleWire wire : wiring.getRequiredWires("osgi.wiring.package")) {
            String provider = wire.getProvider().getBundle().getSymbolicName();
            String pkg = (String) wire.getCapability().getAttributes().get("osgi.wiring.package");
            assertTrue(pkg + " from " + provider, provider.equals("io.conduit.api")
                    || provider.equals("io.conduit.handler") || wire.getProvider().getBundle().getBundleId() == 0);
        }
        assertEquals(handler, FrameworkUtil.getBundle(LengthFieldBasedFrameDecoder.class));
    }

    @Test
    public void aFramedEchoOverLoopback() throws Exception {
        Transport transport = Transports.selected();
        try (EventLoopGroup group = transport.newEventLoopGroup(1)) {
            Channel server = new ServerBootstrap().transport(transport).group(group).channelType(ChannelType.TCP)
                    .childHandler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast(new LengthFieldBasedFrameDecoder(1024, 0, 2, 0, 2),
                                    new LengthFieldPrepender(2), new ChannelHandler() {
                                        @Override
                                        public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                            ctx.writeAndFlush(msg);
                                        }
                                    });
                        }
                    })
                    .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).get(10, TimeUnit.SECONDS);
            CompletableFuture<String> echoed = new CompletableFuture<>();
            Channel client = new Bootstrap().transport(transport).group(group).channelType(ChannelType.TCP)
                    .handler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast(new LengthFieldBasedFrameDecoder(1024, 0, 2, 0, 2),
                                    new ChannelHandler() {
                                        @Override
                                        public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                            try (Buffer b = (Buffer) msg) {
                                                echoed.complete(new String(b.toByteArray(), StandardCharsets.US_ASCII));
                                            }
                                        }
                                    });
                        }
                    })
                    .connect(server.localAddress()).get(10, TimeUnit.SECONDS);
            Buffer frame = client.alloc().buffer(7).writeShort(5)
                    .writeBytes("hello".getBytes(StandardCharsets.US_ASCII));
            client.writeAndFlush(frame).get(10, TimeUnit.SECONDS);
            assertEquals("hello", echoed.get(10, TimeUnit.SECONDS));
            client.close().get(10, TimeUnit.SECONDS);
            server.close().get(10, TimeUnit.SECONDS);
        }
    }
}
