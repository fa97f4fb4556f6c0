package io.conduit.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.options;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;

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
import org.osgi.framework.ServiceReference;

/**
 * {@code -Dconduit.transport=nio} with the real epoll bundle (fresh framework, own JVM): nio is selected while
 * epoll stays available (its library loaded) and can still be had by name.
 */
@RunWith(PaxExam.class)
public class EpollNioPreferenceTest {

    @Inject
    private BundleContext context;

    @Configuration
    public Option[] config() {
        return options(ItestOptions.base(), ItestOptions.ours("conduit.itest.nioJar"), ItestOptions.epoll(),
                systemProperty("conduit.transport").value("nio"));
    }

    @Before
    public void allBundlesStarted() {
        Osgi.assertAllBundlesActive(context);
    }

    @Test
    public void nioIsSelectedWhileEpollStaysAvailable() throws Exception {
        TransportSelection s = Transports.selection();
        assertEquals(s.explain(), "nio", s.selectedName());
        assertEquals(TransportSelection.PreferenceSource.SYSTEM_PROPERTY, s.preferenceSource());
        TransportSelection.Candidate epoll = s.candidate("epoll").get();
        assertTrue(s.explain(), epoll.availability().isAvailable());
        assertEquals(TransportSelection.Outcome.NOT_CHOSEN, epoll.outcome());

        ServiceReference<TransportProvider> provider = context.getServiceReferences(TransportProvider.class,
                "(conduit.transport.name=epoll)").iterator().next();
        assertEquals(Boolean.TRUE, provider.getProperty("conduit.transport.available"));
        ServiceReference<Transport> published = context.getServiceReference(Transport.class);
        assertNotNull("Transport service", published);
        assertEquals("nio", published.getProperty("conduit.transport.name"));
        assertEquals("epoll", Transports.get("epoll").name());

        String transports = Osgi.gogo(context, "conduit:transports");
        assertTrue(transports, transports.matches("(?s).*\\* nio\\s+java\\s+10\\s+yes\\s.*"));
        assertTrue(transports, transports.matches("(?s).*\\n  epoll\\s+native\\s+100\\s+yes\\s.*"));
        assertTrue(transports, transports.contains("preference: nio (system property conduit.transport)"));
    }
}
