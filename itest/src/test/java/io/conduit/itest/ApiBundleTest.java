package io.conduit.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.options;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import javax.inject.Inject;

import io.conduit.transport.Availability;
import io.conduit.transport.Diagnostics;
import io.conduit.transport.Transport;
import io.conduit.transport.TransportChangeListener;
import io.conduit.transport.TransportSelection;
import io.conduit.transport.Transports;
import io.conduit.transport.spi.TransportProvider;
import org.apache.felix.service.command.CommandProcessor;
import org.apache.felix.service.command.CommandSession;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.metatype.AttributeDefinition;
import org.osgi.service.metatype.MetaTypeService;
import org.osgi.service.metatype.ObjectClassDefinition;

/**
 * The API bundle in a framework with SCR, Config Admin, Metatype and Gogo, and transport providers registered as
 * OSGi services by the test itself (no transport bundle installed). A fresh framework per test method.
 */
@RunWith(PaxExam.class)
public class ApiBundleTest {

    @Inject
    private BundleContext context;

    @Inject
    private ConfigurationAdmin configAdmin;

    private final List<ServiceRegistration<?>> registrations = new ArrayList<>();

    @org.ops4j.pax.exam.Configuration
    public Option[] config() {
        return options(ItestOptions.base());
    }

    @Before
    public void allBundlesStarted() {
        Osgi.assertAllBundlesActive(context);
    }

    @After
    public void unregisterTestServices() {
        for (ServiceRegistration<?> r : registrations) {
            try {
                r.unregister();
            } catch (IllegalStateException alreadyGone) {
                // unregistered by the test
            }
        }
    }

    @Test
    public void apiBundleStartsAndReportsThatNoProviderIsRegistered() {
        Bundle api = Osgi.bundle(context, "io.conduit.api");
        assertEquals("io.conduit.api state", Bundle.ACTIVE, api.getState());
        assertTrue("providers: " + Transports.providers(), Transports.providers().isEmpty());
        TransportSelection s = Transports.selection();
        assertFalse(s.explain(), s.selected().isPresent());
        assertNull("no Transport service while nothing is selected", context.getServiceReference(Transport.class));
        // Transports is the bundle's class, not a copy from the class path
        assertEquals(api, org.osgi.framework.FrameworkUtil.getBundle(Transports.class));
    }

    @Test
    public void discoveryInsideTheFrameworkDoesNotScanTheLaunchersClassPath() {
        assertNotNull("the trap is set: the launcher's class path lists ClassPathProvider",
                ClassLoader.getSystemClassLoader().getResource(
                        "META-INF/services/io.conduit.transport.spi.TransportProvider"));
        String report = io.conduit.transport.Diagnostics.report();
        assertFalse(report, report.contains("classpath-only"));
        assertFalse(report, report.contains("ClassPathProvider"));
        assertTrue(Transports.providers().isEmpty());
    }

    @Test
    public void providerServicesAreTrackedSelectedPublishedAndWithdrawn() throws Exception {
        List<String> events = new CopyOnWriteArrayList<>();
        TransportChangeListener whiteboard = (previous, current) -> events.add(name(previous) + "->" + name(current));
        registrations.add(context.registerService(TransportChangeListener.class, whiteboard, null));

        FakeProvider low = FakeProvider.available("fake-low", 20);
        ServiceRegistration<TransportProvider> lowReg = registerProvider(low);
        assertEquals(List.of(low), Transports.providers());
        assertEquals("fake-low", Transports.selected().name());
        assertPublished("fake-low", 20);

        FakeProvider high = FakeProvider.available("fake-high", 30);
        ServiceRegistration<TransportProvider> highReg = registerProvider(high);
        assertEquals("fake-high", Transports.selection().selectedName());
        assertPublished("fake-high", 30);

        highReg.unregister();
        assertEquals(List.of(low), Transports.providers());
        assertEquals("fake-low", Transports.selected().name());
        assertPublished("fake-low", 20);

        lowReg.unregister();
        assertTrue(Transports.providers().isEmpty());
        assertNull("Transport service withdrawn", context.getServiceReference(Transport.class));
        assertEquals(List.of("null->fake-low", "fake-low->fake-high", "fake-high->fake-low", "fake-low->null"),
                events);
    }

    @Test
    public void aProviderServiceTakesTheNameOnlyOnce() {
        registerProvider(FakeProvider.available("twin", 20));
        registerProvider(FakeProvider.available("twin", 40));
        assertEquals(1, Transports.providers().size());
        assertEquals("the first registered provider of a name wins", 20, Transports.providers().get(0).ranking());
    }

    @Test
    public void configurationOverridesThePreferenceAndDeletingItReverts() throws Exception {
        registerProvider(FakeProvider.available("alpha", 30));
        registerProvider(FakeProvider.available("beta", 20));
        assertEquals("alpha", Transports.selected().name());

        Configuration cfg = configAdmin.getConfiguration("io.conduit.transport", null);
        Dictionary<String, Object> props = new Hashtable<>();
        props.put("transport", "beta");
        cfg.update(props);
        // Configuration Admin applies the change on its own thread: wait until it has also re-published
        awaitPublished("beta", 20);
        assertEquals("beta", Transports.preference());
        assertEquals(TransportSelection.PreferenceSource.OVERRIDE, Transports.selection().preferenceSource());

        props.put("strict", Boolean.TRUE);
        props.put("transport", "missing");
        cfg.update(props);
        Osgi.await("strict configuration naming an unregistered transport to fail the selection and withdraw the"
                + " Transport service", () -> Transports.selection().failure() != null
                        && context.getServiceReference(Transport.class) == null, Transports.selection()::explain);
        assertTrue(Transports.selection().strict());

        cfg.delete();
        Osgi.await("deleting the configuration to return to the system property",
                () -> Transports.preference() == null && "alpha".equals(Transports.selection().selectedName()),
                Transports.selection()::explain);
        awaitPublished("alpha", 30);
        assertFalse(Transports.selection().strict());
    }

    @Test
    public void aConfigurationWithABadValueIsRejectedAsAWholeAndShownUntilAValidOneReplacesIt() throws Exception {
        registerProvider(FakeProvider.available("alpha", 30));
        registerProvider(FakeProvider.available("beta", 20));
        Configuration cfg = configAdmin.getConfiguration("io.conduit.transport", null);
        Dictionary<String, Object> props = new Hashtable<>();
        props.put("transport", "beta");
        props.put("strict", "maybe"); // as FileInstall passes `strict = maybe` of a .cfg file
        cfg.update(props);
        String rejected = "configuration io.conduit.transport REJECTED, none of its values applied: property"
                + " strict='maybe' is not a boolean";
        Osgi.await("the rejection to show in the diagnostics report",
                () -> Diagnostics.report().contains(rejected), Diagnostics::report);
        assertNull("the valid key of the rejected configuration is not applied either", Transports.preference());
        assertEquals("alpha", Transports.selected().name());
        String transports = Osgi.gogo(context, "conduit:transports");
        assertTrue(transports, transports.contains(rejected));

        props.put("strict", "false");
        cfg.update(props);
        awaitPublished("beta", 20);
        Osgi.await("a valid configuration to clear the rejection",
                () -> !Diagnostics.report().contains("REJECTED"),
                Diagnostics::report);
        cfg.delete();
    }

    @Test
    public void stoppingTheApiBundleWithdrawsEverythingAndStartingItTracksProvidersAgain() throws Exception {
        registerProvider(FakeProvider.available("alpha", 30));
        Bundle api = Osgi.bundle(context, "io.conduit.api");
        Configuration cfg = configAdmin.getConfiguration("io.conduit.transport", null);
        Dictionary<String, Object> props = new Hashtable<>();
        props.put("transport", "alpha");
        cfg.update(props);
        Osgi.await("the configuration to apply", () -> "alpha".equals(Transports.preference()),
                Transports.selection()::explain);

        api.stop();
        assertNull("Transport service withdrawn", context.getServiceReference(Transport.class));
        assertTrue("providers unregistered: " + Transports.providers(), Transports.providers().isEmpty());
        assertNull("run-time preference cleared", Transports.preference());
        assertTrue("Gogo commands withdrawn",
                context.getServiceReferences(Object.class, "(osgi.command.scope=conduit)").isEmpty());

        api.start();
        assertEquals(List.of("alpha"), names(Transports.providers()));
        assertPublished("alpha", 30);
        Osgi.await("the configuration to apply again", () -> "alpha".equals(Transports.preference()),
                Transports.selection()::explain);
    }

    @Test
    public void metatypeDescribesTheConfiguration() {
        MetaTypeService metatype = service(MetaTypeService.class);
        ObjectClassDefinition ocd = metatype.getMetaTypeInformation(Osgi.bundle(context, "io.conduit.api"))
                .getObjectClassDefinition("io.conduit.transport", null);
        assertNotNull("OCD io.conduit.transport", ocd);
        List<String> ids = new ArrayList<>();
        for (AttributeDefinition ad : ocd.getAttributeDefinitions(ObjectClassDefinition.ALL)) {
            ids.add(ad.getID() + ":" + ad.getType());
        }
        assertEquals(List.of("transport:" + AttributeDefinition.STRING, "strict:" + AttributeDefinition.BOOLEAN),
                ids);
    }

    @Test
    public void gogoCommandsShowTransportsDiagnosticsAndChangeThePreference() throws Exception {
        registerProvider(FakeProvider.available("alpha", 30));
        registerProvider(new FakeProvider("gone", true, 100,
                Availability.unavailable(new IllegalStateException("libgone.so not found"))));

        CommandProcessor processor = service(CommandProcessor.class);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (CommandSession session = processor.createSession(new ByteArrayInputStream(new byte[0]), out, out)) {
            String transports = String.valueOf(session.execute("conduit:transports"));
            assertTrue(transports, transports.contains("* alpha"));
            assertTrue(transports, transports.contains("libgone.so not found"));
            assertTrue(transports, transports.contains("selected: alpha"));

            String diag = String.valueOf(session.execute("conduit:diag"));
            assertTrue(diag, diag.startsWith("Conduit diagnostics"));
            assertTrue(diag, diag.contains("gone"));
            assertTrue(diag, diag.contains("libgone.so not found"));

            registerProvider(FakeProvider.available("beta", 20));
            String use = String.valueOf(session.execute("conduit:use beta"));
            assertTrue(use, use.contains("selected: beta"));
            assertEquals("beta", Transports.selected().name());
            session.execute("conduit:use");
            assertNull(Transports.preference());
            assertEquals("alpha", Transports.selected().name());

            String channels = String.valueOf(session.execute("conduit:channels"));
            assertTrue(channels, channels.contains("0 open channels"));
        }
    }

    // ---- helpers

    private ServiceRegistration<TransportProvider> registerProvider(TransportProvider p) {
        Dictionary<String, Object> props = new Hashtable<>();
        props.put("conduit.transport.name", p.name());
        props.put("conduit.transport.available", p.availability().isAvailable());
        props.put("service.ranking", p.ranking());
        ServiceRegistration<TransportProvider> r = context.registerService(TransportProvider.class, p, props);
        registrations.add(r);
        return r;
    }

    private void awaitPublished(String name, int ranking) {
        Osgi.await("the Transport service of " + name, () -> {
            try {
                assertPublished(name, ranking);
                return true;
            } catch (AssertionError | Exception notYet) {
                return false;
            }
        }, () -> Transports.selection().explain() + "\nTransport services: " + transportServices());
        try {
            assertPublished(name, ranking);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private String transportServices() {
        try {
            List<String> out = new ArrayList<>();
            for (ServiceReference<Transport> r : context.getServiceReferences(Transport.class, null)) {
                out.add(r.getProperty("conduit.transport.name") + "/" + r.getProperty("service.ranking"));
            }
            return out.toString();
        } catch (Exception e) {
            return e.toString();
        }
    }

    private void assertPublished(String name, int ranking) throws Exception {
        Collection<ServiceReference<Transport>> refs = context.getServiceReferences(Transport.class, null);
        assertEquals("one Transport service: " + refs, 1, refs.size());
        ServiceReference<Transport> ref = refs.iterator().next();
        assertEquals(name, ref.getProperty("conduit.transport.name"));
        assertEquals(ranking, ref.getProperty("service.ranking"));
        Transport t = context.getService(ref);
        try {
            assertEquals(name, t.name());
        } finally {
            context.ungetService(ref);
        }
    }

    private <T> T service(Class<T> type) {
        ServiceReference<T> ref = context.getServiceReference(type);
        assertNotNull(type.getName() + " service", ref);
        return context.getService(ref);
    }

    private static List<String> names(List<TransportProvider> providers) {
        List<String> names = new ArrayList<>();
        providers.forEach(p -> names.add(p.name()));
        return names;
    }

    private static String name(Transport t) {
        return t == null ? "null" : t.name();
    }
}
