package io.conduit.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.options;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import javax.inject.Inject;
import javax.management.MBeanServer;
import javax.management.ObjectName;

import io.conduit.buffer.Buffer;
import io.conduit.bootstrap.Bootstrap;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.bootstrap.ServerBootstrap;
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
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;

/**
 * The platform metrics on JMX inside a framework: after a TCP echo over the nio bundle, the platform MBean server
 * shows {@code io.conduit:type=Transport,name=nio} with exactly the bytes moved; the MBean goes when the nio bundle
 * stops and comes back with the same totals once the restarted bundle makes a group; stopping the API bundle
 * leaves no {@code io.conduit} MBean behind.
 */
@RunWith(PaxExam.class)
public class MetricsJmxTest {

    private static final int BYTES = 10_000;

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

    /** One echo of {@link #BYTES} bytes over loopback on a group of {@code transport}, closed afterwards. */
    private static void echo(Transport transport) throws Exception {
        try (EventLoopGroup group = transport.newEventLoopGroup(1)) {
            Channel server = new ServerBootstrap().transport(transport).group(group).channelType(ChannelType.TCP)
                    .childHandler(new Echo())
                    .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).get(10, TimeUnit.SECONDS);
            CompletableFuture<Void> echoed = new CompletableFuture<>();
            AtomicInteger received = new AtomicInteger();
            Channel client = new Bootstrap().transport(transport).group(group).channelType(ChannelType.TCP)
                    .handler(new ChannelHandler() {
                        @Override
                        public void channelRead(ChannelHandlerContext ctx, Object msg) {
                            try (Buffer b = (Buffer) msg) {
                                if (received.addAndGet(b.readableBytes()) >= BYTES) {
                                    echoed.complete(null);
                                }
                            }
                        }
                    })
                    .connect(server.localAddress()).get(10, TimeUnit.SECONDS);
            Buffer data = client.alloc().buffer(BYTES).writeBytes(new byte[BYTES]);
            client.writeAndFlush(data).get(10, TimeUnit.SECONDS);
            echoed.get(10, TimeUnit.SECONDS);
            client.close().get(10, TimeUnit.SECONDS);
            server.close().get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    public void theTransportMBeanCountsTrafficAndGoesWithItsBundle() throws Exception {
        MBeanServer mbs = ManagementFactory.getPlatformMBeanServer();
        ObjectName nio = new ObjectName("io.conduit:type=Transport,name=nio");
        Transport transport = Transports.selected();
        assertEquals("nio", transport.name());
        echo(transport);

        assertTrue(nio + " is registered after traffic", mbs.isRegistered(nio));
        assertEquals("server and client each read every byte", 2L * BYTES, mbs.getAttribute(nio, "BytesRead"));
        assertEquals(2L * BYTES, mbs.getAttribute(nio, "BytesWritten"));
        assertEquals(1L, mbs.getAttribute(nio, "AcceptedConnections"));
        assertEquals(0L, mbs.getAttribute(nio, "OpenChannels"));
        assertEquals("the group was closed: its loop terminated", 0, mbs.getAttribute(nio, "EventLoops"));
        assertTrue("a closed group leaves no EventLoop MBean",
                mbs.queryNames(new ObjectName("io.conduit:type=EventLoop,transport=nio,*"), null).isEmpty());
        assertTrue(mbs.isRegistered(new ObjectName("io.conduit:type=Allocator,name=pooled")));

        Bundle nioBundle = Osgi.bundle(context, "io.conduit.nio");
        nioBundle.stop();
        assertFalse(nio + " is unregistered when the transport bundle stops", mbs.isRegistered(nio));
        nioBundle.start();
        Osgi.await("nio to be selected again", () -> "nio".equals(Transports.selection().selectedName()),
                Transports.selection()::explain);
        Transport again = Transports.selected();
        echo(again);
        assertTrue(nio + " is registered again once the restarted bundle made a group", mbs.isRegistered(nio));
        assertEquals("the totals survive the bundle restart", 4L * BYTES, mbs.getAttribute(nio, "BytesRead"));

        Bundle api = Osgi.bundle(context, "io.conduit.api");
        api.stop();
        try {
            assertEquals("no io.conduit MBean outlives the API bundle", 0,
                    mbs.queryNames(new ObjectName("io.conduit:*"), null).size());
        } finally {
            api.start();
        }
    }
}
