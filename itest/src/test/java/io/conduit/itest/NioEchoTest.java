package io.conduit.itest;

import static org.junit.Assert.assertEquals;
import static org.ops4j.pax.exam.CoreOptions.options;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import javax.inject.Inject;

import io.conduit.buffer.Buffer;
import io.conduit.channel.Bootstrap;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.ServerBootstrap;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.transport.ChannelType;
import io.conduit.transport.Transport;
import io.conduit.transport.Transports;
import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.osgi.framework.BundleContext;

/** Real I/O inside the framework: a TCP echo over loopback through the selected (nio) transport. */
@RunWith(PaxExam.class)
public class NioEchoTest {

    @Inject
    private BundleContext context;

    @Configuration
    public Option[] config() {
        return options(ItestOptions.base(), ItestOptions.ours("conduit.itest.nioJar"));
    }

    @Before
    public void allBundlesStarted() {
        Osgi.assertAllBundlesActive(context);
    }

    @ChannelHandler.Sharable
    private static final class Echo implements ChannelHandler {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.writeAndFlush(msg);
        }
    }

    @Test
    public void tcpEchoOverLoopback() throws Exception {
        Transport transport = Transports.selected();
        assertEquals("nio", transport.name());
        try (EventLoopGroup group = transport.newEventLoopGroup(1)) {
            Channel server = new ServerBootstrap().transport(transport).group(group).channelType(ChannelType.TCP)
                    .childHandler(new Echo())
                    .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).get(10, TimeUnit.SECONDS);
            CompletableFuture<String> echoed = new CompletableFuture<>();
            StringBuilder received = new StringBuilder();
            Channel client = new Bootstrap().transport(transport).group(group).channelType(ChannelType.TCP)
                    .handler(new ChannelHandler() {
                        @Override
                        public void channelRead(ChannelHandlerContext ctx, Object msg) {
                            try (Buffer b = (Buffer) msg) {
                                byte[] bytes = new byte[b.readableBytes()];
                                b.readBytes(bytes);
                                received.append(new String(bytes, StandardCharsets.US_ASCII));
                            }
                            if (received.length() >= 5) {
                                echoed.complete(received.toString());
                            }
                        }
                    })
                    .connect(server.localAddress()).get(10, TimeUnit.SECONDS);
            Buffer hello = client.alloc().buffer(5).writeBytes("hello".getBytes(StandardCharsets.US_ASCII));
            client.writeAndFlush(hello).get(10, TimeUnit.SECONDS);
            assertEquals("hello", echoed.get(10, TimeUnit.SECONDS));
            client.close().get(10, TimeUnit.SECONDS);
            server.close().get(10, TimeUnit.SECONDS);
        }
    }
}
