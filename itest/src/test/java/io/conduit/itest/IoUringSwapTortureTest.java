package io.conduit.itest;

import static org.ops4j.pax.exam.CoreOptions.options;

import javax.inject.Inject;

import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.osgi.framework.BundleContext;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * The swap torture of {@link SwapTortureTest} on the io_uring bundle: a {@code ManagedServer} echo under load while
 * the io_uring bundle is updated and refreshed, stopped and started, and uninstalled and installed again, back to
 * back, between Configuration Admin flips between {@code nio} and {@code io_uring}. The epoll bundle stays: while
 * io_uring is gone, the configured {@code io_uring} is skipped and the server runs on epoll. Same assertions: nothing
 * refused, corrupted or left hanging; descriptors (rings, eventfds, sockets) and threads back to their start values;
 * at most one old io_uring class loader reachable after GC; a bounded number of log lines and no stack trace.
 */
@RunWith(PaxExam.class)
public class IoUringSwapTortureTest {

    /** Bundle operation cycles (epoll: 50). */
    private static final int CYCLES = 30;

    @Inject
    private BundleContext context;

    @Inject
    private ConfigurationAdmin configAdmin;

    @Configuration
    public Option[] config() {
        return options(ItestOptions.base(), ItestOptions.ours("conduit.itest.nioJar"), ItestOptions.epoll(),
                ItestOptions.iouring());
    }

    @Before
    public void allBundlesStarted() {
        Osgi.assertAllBundlesActive(context);
    }

    @Test
    public void echoHoldsWhileTheIoUringBundleIsUpdatedRefreshedStoppedAndReinstalledBackToBack() throws Exception {
        SwapTortureTest.torture(context, configAdmin, "io.conduit.iouring", "conduit.itest.iouringJar", "io_uring",
                CYCLES);
    }
}
