package io.conduit.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.options;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;

import java.util.Dictionary;
import java.util.Hashtable;

import javax.inject.Inject;

import io.conduit.transport.Availability;
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
import org.osgi.framework.ServiceRegistration;

/**
 * {@code -Dconduit.noNative=true} (fresh framework, own JVM): a native provider is reported unavailable with a
 * cause naming the property, and nio is selected.
 */
@RunWith(PaxExam.class)
public class NoNativeTest {

    @Inject
    private BundleContext context;

    @Configuration
    public Option[] config() {
        return options(ItestOptions.base(), ItestOptions.ours("conduit.itest.nioJar"),
                systemProperty("conduit.noNative").value("true"));
    }

    @Before
    public void allBundlesStarted() {
        Osgi.assertAllBundlesActive(context);
    }

    @Test
    public void nativeTransportsAreUnavailableWithACauseNamingTheProperty() {
        Dictionary<String, Object> props = new Hashtable<>();
        props.put("conduit.transport.name", "fastnative");
        ServiceRegistration<TransportProvider> reg = context.registerService(TransportProvider.class,
                new FakeProvider("fastnative", true, 100, Availability.available()), props);
        try {
            TransportSelection s = Transports.selection();
            assertEquals(s.explain(), "nio", s.selectedName());
            assertTrue(s.noNative());
            TransportSelection.Candidate c = s.candidate("fastnative").get();
            assertFalse(c.availability().isAvailable());
            String cause = c.availability().unavailabilityCause().getMessage();
            assertTrue(cause, cause.contains("conduit.noNative"));
            String report = Diagnostics.report();
            assertTrue(report, report.contains("conduit.noNative = true (set)"));
        } finally {
            reg.unregister();
        }
    }
}
