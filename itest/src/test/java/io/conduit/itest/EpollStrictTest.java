package io.conduit.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.ops4j.pax.exam.CoreOptions.options;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;

import javax.inject.Inject;

import io.conduit.transport.Diagnostics;
import io.conduit.transport.Transport;
import io.conduit.transport.TransportSelection;
import io.conduit.transport.Transports;
import io.conduit.transport.UnavailableTransportException;
import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.osgi.framework.BundleContext;

/**
 * Strict mode ({@code -Dconduit.transport.strict=true}) with an unavailable preference (fresh framework, own JVM):
 * {@code -Dconduit.transport=epoll} while {@code -Dconduit.noNative=true} makes the registered epoll provider
 * unavailable, so nothing is selected and the failure names epoll and the property; a preference for
 * {@code kqueue}, which no bundle registers here, fails naming it; {@code nio} is then selected.
 */
@RunWith(PaxExam.class)
public class EpollStrictTest {

    @Inject
    private BundleContext context;

    @Configuration
    public Option[] config() {
        return options(ItestOptions.base(), ItestOptions.ours("conduit.itest.nioJar"), ItestOptions.epoll(),
                systemProperty("conduit.transport").value("epoll"),
                systemProperty("conduit.transport.strict").value("true"),
                systemProperty("conduit.noNative").value("true"));
    }

    @Before
    public void allBundlesStarted() {
        Osgi.assertAllBundlesActive(context);
    }

    @Test
    public void anUnavailablePreferenceFailsTheSelectionWithACauseNamingIt() throws Exception {
        TransportSelection s = Transports.selection();
        assertNull(s.explain(), s.selectedName());
        assertTrue(s.strict());
        assertTrue(s.reason(), s.reason().startsWith("transport 'epoll' is first in conduit.transport='epoll' and"
                + " conduit.transport.strict=true, but it is unavailable: native transports are disabled by"
                + " -Dconduit.noNative=true"));
        UnavailableTransportException failure = selectedFails();
        assertTrue(failure.getMessage(), failure.getMessage().contains("transport 'epoll'"));
        assertTrue(String.valueOf(failure.getCause()), failure.getCause().getMessage().contains("conduit.noNative"));
        assertNull("no Transport service while nothing is selected", context.getServiceReference(Transport.class));
        String transports = Osgi.gogo(context, "conduit:transports");
        assertTrue(transports, transports.contains("preference: epoll (system property conduit.transport), strict"));
        assertTrue(transports, transports.contains("no transport selected: transport 'epoll' is first"));
        String report = Diagnostics.report();
        assertTrue(report, report.contains("selected: none - transport 'epoll' is first"));

        try {
            Transports.setPreference("kqueue"); // registered by no bundle here
            failure = selectedFails();
            assertTrue(failure.getMessage(), failure.getMessage().contains("unknown transport kqueue"));
            assertTrue(failure.getMessage(), failure.getMessage().contains("conduit.transport.strict=true"));

            Transports.setPreference("nio");
            assertEquals(Transports.selection().explain(), "nio", Transports.selected().name());
            assertNotNull("Transport service once nio is selected", context.getServiceReference(Transport.class));
        } finally {
            Transports.setPreference(null);
        }
    }

    private static UnavailableTransportException selectedFails() {
        try {
            Transport t = Transports.selected();
            fail("strict selection returned " + t.name() + ": " + Transports.selection().explain());
            return null;
        } catch (UnavailableTransportException expected) {
            return expected;
        }
    }
}
