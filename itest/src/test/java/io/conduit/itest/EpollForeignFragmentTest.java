package io.conduit.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.options;

import javax.inject.Inject;

import io.conduit.transport.Diagnostics;
import io.conduit.transport.TransportSelection;
import io.conduit.transport.Transports;
import io.conduit.transport.spi.NativeLibraryLoader;
import org.junit.Assume;
import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;

/**
 * The epoll bundle with only the native fragment of the other architecture (fresh framework, own JVM): the fragment
 * attaches (its {@code Bundle-NativeCode} ends in the optional {@code *}) but holds no library for this machine, so
 * epoll is unavailable and nio is selected; the cause says which fragment is there and which one to install, where
 * it once advised to install "the native fragment bundle" as if none were there.
 */
@RunWith(PaxExam.class)
public class EpollForeignFragmentTest {

    /** The fragment of the other architecture: resolves through its optional {@code *} clause, adds no library. */
    static final String FOREIGN_FRAGMENT = "io.conduit.epoll.linux."
            + ("aarch64".equals(NativeLibraryLoader.arch()) ? "x86_64" : "aarch64");

    @Inject
    private BundleContext context;

    @Configuration
    public Option[] config() {
        String foreignJar = "aarch64".equals(NativeLibraryLoader.arch()) ? "conduit.itest.epollX86Jar"
                : "conduit.itest.epollAarch64Jar";
        if (!ItestFiles.epollFragments().contains(FOREIGN_FRAGMENT)) {
            return options(ItestOptions.base(), ItestOptions.ours("conduit.itest.nioJar"),
                    ItestOptions.ours("conduit.itest.epollJar"));
        }
        return options(ItestOptions.base(), ItestOptions.ours("conduit.itest.nioJar"),
                ItestOptions.ours(foreignJar).noStart(), ItestOptions.ours("conduit.itest.epollJar"));
    }

    @Before
    public void allBundlesStarted() {
        Osgi.assertAllBundlesActive(context);
    }

    @Test
    public void theCauseNamesTheFragmentThereAndTheOneToInstall() {
        // Without the cross compiler the build made no foreign fragment; the build printed its one skip line
        // (and fails instead under CONDUIT_REQUIRE_TOOLS=true), so this test has nothing to install.
        Assume.assumeTrue(FOREIGN_FRAGMENT + " was not built (no cross compiler; the build printed why)",
                ItestFiles.epollFragments().contains(FOREIGN_FRAGMENT));
        assertEquals(FOREIGN_FRAGMENT, Bundle.RESOLVED,
                Osgi.bundle(context, FOREIGN_FRAGMENT).getState());
        TransportSelection s = Transports.selection();
        assertEquals(s.explain(), "nio", s.selectedName());
        TransportSelection.Candidate epoll = s.candidate("epoll").get();
        assertFalse(epoll.availability().isAvailable());
        String cause = epoll.availability().unavailabilityCause().getMessage();
        String other = FOREIGN_FRAGMENT.substring(FOREIGN_FRAGMENT.lastIndexOf('.') + 1);
        assertTrue(cause, cause.contains("found " + System.mapLibraryName("conduit_epoll_" + other) + " (fragment "
                + FOREIGN_FRAGMENT + ") but this JVM is " + NativeLibraryLoader.arch()));
        assertTrue(cause, cause.contains("install " + EpollBundleTest.NATIVE_FRAGMENT + "."));
        assertTrue(s.reason(), s.reason().contains("install " + EpollBundleTest.NATIVE_FRAGMENT));
        String report = Diagnostics.report();
        assertTrue(report, report.contains("install " + EpollBundleTest.NATIVE_FRAGMENT));
    }
}
