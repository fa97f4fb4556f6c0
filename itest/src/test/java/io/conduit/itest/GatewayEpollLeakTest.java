package io.conduit.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.options;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Arrays;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.concurrent.TimeUnit;

import javax.inject.Inject;

import io.conduit.transport.Transports;
import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * The gateway bundle keeps no class of a stopped transport: its echo service serves over epoll while the epoll
 * bundle is updated and refreshed back to back, and afterwards at most one epoll class loader (the current
 * revision's) is reachable after GC. A class loader kept reachable keeps its native library mapped, and each later
 * revision extracts and maps another copy.
 *
 * <p>The bug this guards against: the gateway's network held the transport selected at start-up only to name it and
 * as a fallback for connects, so the first epoll revision's class loader stayed reachable for the gateway's life.
 */
@RunWith(PaxExam.class)
public class GatewayEpollLeakTest {

    private static final int CYCLES = 5;
    private static final int SETTLE_SECONDS = 30;

    @Inject
    private BundleContext context;

    @Configuration
    public Option[] config() {
        return options(ItestOptions.base(), ItestOptions.ours("conduit.itest.nioJar"), ItestOptions.epoll(),
                ItestOptions.ours("conduit.itest.handlerJar"), ItestOptions.ours("conduit.itest.gatewayJar"));
    }

    @Before
    public void allBundlesStarted() {
        Osgi.assertAllBundlesActive(context);
    }

    @Test
    public void afterUpdateAndRefreshAtMostOneEpollClassLoaderIsReachable() throws Exception {
        assertEquals("epoll", Transports.selected().name());
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        InetSocketAddress address = new InetSocketAddress("127.0.0.1", port);
        ConfigurationAdmin configAdmin = context.getService(context.getServiceReference(ConfigurationAdmin.class));
        org.osgi.service.cm.Configuration echo = configAdmin.createFactoryConfiguration("io.conduit.gateway.echo",
                null);
        Dictionary<String, Object> props = new Hashtable<>();
        props.put("listen", "tcp://127.0.0.1:" + port);
        echo.update(props);
        try {
            EpollLoaders loaders = new EpollLoaders();
            loaders.record();
            awaitEcho(address);
            for (int i = 0; i < CYCLES; i++) {
                Bundle epoll = Osgi.bundle(context, "io.conduit.epoll");
                try (InputStream jar = new FileInputStream(System.getProperty("conduit.itest.epollJar"))) {
                    epoll.update(jar);
                }
                Osgi.refresh(context, List.of(epoll));
                loaders.record();
                awaitEcho(address);
            }
            Osgi.await("epoll selected again", () -> {
                try {
                    return "epoll".equals(Transports.selected().name());
                } catch (RuntimeException e) {
                    return false;
                }
            }, () -> Transports.selection().explain());
            awaitEcho(address);
            int left = loaders.reachableAfterGc(SETTLE_SECONDS);
            System.out.println("GATEWAY-EPOLL-LEAK [" + context.getBundle(0).getSymbolicName() + ", JDK "
                    + Runtime.version().feature() + "] update+refresh cycles=" + CYCLES + " epoll class loaders seen="
                    + loaders.seen() + " reachable after GC=" + left);
            assertTrue("at most one epoll class loader reachable after GC, got " + left + " of " + loaders.seen()
                    + (left <= 1 ? "" : loaders.suspects()), left <= 1);
        } finally {
            echo.delete();
        }
    }

    /** Polls a 1 KiB echo through the gateway every 50 ms for at most 10 s. */
    private static void awaitEcho(InetSocketAddress address) throws InterruptedException {
        byte[] out = new byte[1024];
        Arrays.fill(out, (byte) 'x');
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        IOException last = null;
        while (System.nanoTime() - deadline < 0) {
            try (Socket s = new Socket()) {
                s.connect(address, 2000);
                s.setSoTimeout(5000);
                s.getOutputStream().write(out);
                byte[] in = s.getInputStream().readNBytes(out.length);
                if (Arrays.equals(out, in)) {
                    return;
                }
            } catch (IOException e) {
                last = e;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the gateway's echo on " + address + " did not answer within 10 s", last);
    }
}
