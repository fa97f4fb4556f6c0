package io.conduit.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.options;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.TimeUnit;

import javax.inject.Inject;

import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.micrometer.ConduitMetricsBinder;
import io.conduit.transport.ManagedServer;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.osgi.framework.BundleContext;
import org.osgi.framework.FrameworkUtil;

/**
 * The Micrometer binder bundle with Micrometer's own bundles (micrometer-core, micrometer-commons, jspecify) in Felix
 * and Equinox: everything resolves, and a binder made inside the framework counts an echo's bytes on the selected
 * transport in a {@code SimpleMeterRegistry}.
 */
@RunWith(PaxExam.class)
public class MicrometerBundleTest {

    @Inject
    private BundleContext context;

    @Configuration
    public Option[] config() {
        return options(ItestOptions.base(), ItestOptions.ours("conduit.itest.nioJar"), ItestOptions.epoll(),
                ItestOptions.thirdParty("jspecify"), ItestOptions.thirdParty("micrometer-commons"),
                ItestOptions.thirdParty("micrometer-core"), ItestOptions.ours("conduit.itest.micrometerJar"));
    }

    @Before
    public void allBundlesStarted() {
        Osgi.assertAllBundlesActive(context);
    }

    /** Echoes what it reads. */
    private static final class Echo implements ChannelHandler {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.writeAndFlush(msg);
        }
    }

    @Test
    public void aBinderInTheFrameworkCountsAnEchosBytes() throws Exception {
        assertEquals("io.conduit.micrometer", FrameworkUtil.getBundle(ConduitMetricsBinder.class).getSymbolicName());
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        ManagedServer server = new ManagedServer(new InetSocketAddress("127.0.0.1", 0)).childHandler(new Echo());
        InetSocketAddress address = (InetSocketAddress) server.start().get(10, TimeUnit.SECONDS);
        try (ConduitMetricsBinder binder = new ConduitMetricsBinder()) {
            binder.bindTo(registry);
            String transport = server.transportName();
            FunctionCounter read = registry.find("conduit.transport.read").tag("transport", transport)
                    .functionCounter();
            assertNotNull(transport + " has its meters:\n" + registry.getMetersAsString(), read);
            double before = read.count();
            byte[] data = new byte[10_000];
            try (Socket s = new Socket(address.getAddress(), address.getPort())) {
                OutputStream out = s.getOutputStream();
                out.write(data);
                out.flush();
                InputStream in = s.getInputStream();
                assertEquals(data.length, in.readNBytes(data.length).length);
            }
            Thread.sleep(1_100); // the binder reads snapshots at most 1 s old
            assertEquals(data.length, read.count() - before, 0.0);
            assertTrue(registry.find("conduit.endpoint.connections.accepted").functionCounter().count() >= 1);
        } finally {
            server.close().await(10, TimeUnit.SECONDS);
        }
    }
}
