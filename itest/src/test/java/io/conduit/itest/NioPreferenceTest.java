package io.conduit.itest;

import static org.junit.Assert.assertEquals;
import static org.ops4j.pax.exam.CoreOptions.options;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;

import java.util.Dictionary;
import java.util.Hashtable;

import javax.inject.Inject;

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

/** {@code -Dconduit.transport=nio} (fresh framework, own JVM): nio wins over an available native transport. */
@RunWith(PaxExam.class)
public class NioPreferenceTest {

    @Inject
    private BundleContext context;

    @Configuration
    public Option[] config() {
        return options(ItestOptions.base(), ItestOptions.ours("conduit.itest.nioJar"),
                systemProperty("conduit.transport").value("nio"));
    }

    @Before
    public void allBundlesStarted() {
        Osgi.assertAllBundlesActive(context);
    }

    @Test
    public void systemPropertyPrefersNioOverAnAvailableNativeTransport() {
        Dictionary<String, Object> props = new Hashtable<>();
        props.put("conduit.transport.name", "fastnative");
        ServiceRegistration<TransportProvider> reg = context.registerService(TransportProvider.class,
                new FakeProvider("fastnative", true, 100, io.conduit.transport.Availability.available()), props);
        try {
            TransportSelection s = Transports.selection();
            assertEquals(s.explain(), "nio", s.selectedName());
            assertEquals(TransportSelection.PreferenceSource.SYSTEM_PROPERTY, s.preferenceSource());
            assertEquals("nio", s.preference());
            assertEquals(TransportSelection.Outcome.NOT_CHOSEN, s.candidate("fastnative").get().outcome());
        } finally {
            reg.unregister();
        }
    }
}
