package io.conduit.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.options;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

import javax.inject.Inject;

import io.conduit.channel.Channel;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.transport.Diagnostics;
import io.conduit.transport.Transport;
import io.conduit.transport.Transports;
import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.osgi.framework.BundleContext;

/**
 * {@code -Dconduit.noUnsafe=true} with the real epoll bundle (fresh framework, own JVM): Conduit does not even look
 * for {@code sun.misc.Unsafe}, and epoll is still selected and carries a TCP echo (its memory access is direct
 * buffers and JNI, never Unsafe).
 */
@RunWith(PaxExam.class)
public class EpollNoUnsafeTest {

    @Inject
    private BundleContext context;

    @Configuration
    public Option[] config() {
        return options(ItestOptions.base(), ItestOptions.ours("conduit.itest.nioJar"), ItestOptions.epoll(),
                systemProperty("conduit.noUnsafe").value("true"));
    }

    @Before
    public void allBundlesStarted() {
        Osgi.assertAllBundlesActive(context);
    }

    @Test
    public void epollIsSelectedAndEchoesWithUnsafeDisabled() throws Exception {
        String report = Diagnostics.report();
        assertTrue(report, report.contains("sun.misc.Unsafe: disabled by conduit.noUnsafe"));
        assertTrue(report, report.contains("conduit.noUnsafe = true (set)"));
        assertEquals(Transports.selection().explain(), "epoll", Transports.selection().selectedName());
        Transport epoll = Transports.selected();
        try (EventLoopGroup group = epoll.newEventLoopGroup(1)) {
            Channel server = SocketEcho.bind(epoll, group);
            long verified = SocketEcho.exchange((InetSocketAddress) server.localAddress(), 2, 16);
            assertEquals(2L * 16 * SocketEcho.CHUNK_BYTES, verified);
            server.close().get(10, TimeUnit.SECONDS);
        }
    }
}
