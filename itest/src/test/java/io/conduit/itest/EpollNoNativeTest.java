package io.conduit.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.options;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;

import javax.inject.Inject;

import io.conduit.transport.Diagnostics;
import io.conduit.transport.TransportSelection;
import io.conduit.transport.Transports;
import io.conduit.transport.spi.TransportProvider;
import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;

/**
 * {@code -Dconduit.noNative=true} with the real epoll bundle and its fragments (fresh framework, own JVM): the epoll
 * provider registers as unavailable without loading its library, nio is selected without a fallback warning, and
 * the cause naming the property is shown by {@code conduit:transports} and by the diagnostics report.
 */
@RunWith(PaxExam.class)
public class EpollNoNativeTest {

    @Inject
    private BundleContext context;

    @Configuration
    public Option[] config() {
        return options(ItestOptions.base(), ItestOptions.ours("conduit.itest.nioJar"), ItestOptions.epoll(),
                systemProperty("conduit.noNative").value("true"));
    }

    @Before
    public void allBundlesStarted() {
        Osgi.assertAllBundlesActive(context);
    }

    @Test
    public void nioIsSelectedAndEpollsCauseNamesTheProperty() throws Exception {
        TransportSelection s = Transports.selection();
        assertEquals(s.explain(), "nio", s.selectedName());
        assertTrue(s.noNative());
        assertTrue("disabling natives on purpose is no fallback: " + s.warnings(), s.warnings().isEmpty());
        TransportSelection.Candidate epoll = s.candidate("epoll").get();
        assertFalse(epoll.availability().isAvailable());
        String cause = epoll.availability().unavailabilityCause().getMessage();
        assertTrue(cause, cause.contains("conduit.noNative=true"));

        ServiceReference<TransportProvider> provider = context.getServiceReferences(TransportProvider.class,
                "(conduit.transport.name=epoll)").iterator().next();
        assertEquals(Boolean.FALSE, provider.getProperty("conduit.transport.available"));
        TransportProvider service = context.getService(provider);
        try {
            String own = service.availability().unavailabilityCause().getMessage();
            assertTrue("the epoll bundle's own probe: " + own, own.contains("conduit.noNative=true (no native library"
                    + " was loaded)"));
        } finally {
            context.ungetService(provider);
        }

        String transports = Osgi.gogo(context, "conduit:transports");
        assertTrue(transports, transports.matches("(?s).*\\* nio\\s+java\\s+10\\s+yes\\s.*"));
        assertTrue(transports, transports.matches(
                "(?s).*\\n  epoll\\s+native\\s+100\\s+no\\s+native transports are disabled by -Dconduit.noNative=true"
                        + ".*"));
        String report = Diagnostics.report();
        assertTrue(report, report.contains("conduit.noNative = true (set)"));
        assertTrue(report, report.matches("(?s).*\\n  epoll: native, ranking 100, UNAVAILABLE\\n      cause: [^\\n]*"
                + "disabled by -Dconduit\\.noNative=true.*"));
        assertTrue(report, report.contains("native transports disabled"));
    }
}
