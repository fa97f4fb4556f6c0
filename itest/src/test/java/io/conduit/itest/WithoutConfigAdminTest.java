package io.conduit.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.options;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;

import java.util.Dictionary;
import java.util.Hashtable;

import javax.inject.Inject;

import io.conduit.transport.Transport;
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
import org.osgi.framework.wiring.BundleWiring;

/**
 * Configuration Admin is optional: without it (and without its API package) the API bundle resolves, starts, and
 * selects by the {@code conduit.transport} system property, set here through Pax Exam in this test's own JVM.
 */
@RunWith(PaxExam.class)
public class WithoutConfigAdminTest {

    @Inject
    private BundleContext context;

    @Configuration
    public Option[] config() {
        return options(ItestOptions.withoutConfigAdmin(), systemProperty("conduit.transport").value("beta"));
    }

    @Before
    public void allBundlesStarted() {
        Osgi.assertAllBundlesActive(context);
    }

    @Test
    public void systemPropertyRulesWithoutConfigurationAdmin() throws Exception {
        BundleWiring wiring = Osgi.bundle(context, "io.conduit.api").adapt(BundleWiring.class);
        assertTrue("org.osgi.service.cm must not be wired", wiring.getRequiredWires("osgi.wiring.package").stream()
                .noneMatch(w -> "org.osgi.service.cm".equals(w.getCapability().getAttributes().get("osgi.wiring.package"))));
        assertNull("no ManagedService for io.conduit.transport", context.getServiceReferences(
                "org.osgi.service.cm.ManagedService", "(service.pid=io.conduit.transport)"));

        ServiceRegistration<TransportProvider> a = register(FakeProvider.available("alpha", 30));
        ServiceRegistration<TransportProvider> b = register(FakeProvider.available("beta", 20));
        try {
            TransportSelection s = Transports.selection();
            assertEquals(s.explain(), "beta", s.selectedName());
            assertEquals(TransportSelection.PreferenceSource.SYSTEM_PROPERTY, s.preferenceSource());
            assertEquals("beta", context.getService(context.getServiceReference(Transport.class)).name());
        } finally {
            a.unregister();
            b.unregister();
        }
    }

    private ServiceRegistration<TransportProvider> register(TransportProvider p) {
        Dictionary<String, Object> props = new Hashtable<>();
        props.put("conduit.transport.name", p.name());
        return context.registerService(TransportProvider.class, p, props);
    }
}
