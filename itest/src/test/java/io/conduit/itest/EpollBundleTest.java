package io.conduit.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.options;

import java.lang.reflect.Method;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;

import javax.inject.Inject;

import io.conduit.channel.Channel;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.transport.Diagnostics;
import io.conduit.transport.Transport;
import io.conduit.transport.TransportSelection;
import io.conduit.transport.Transports;
import io.conduit.transport.spi.NativeLibraryLoader;
import io.conduit.transport.spi.TransportProvider;
import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.FrameworkUtil;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.namespace.HostNamespace;
import org.osgi.framework.wiring.BundleWire;
import org.osgi.framework.wiring.BundleWiring;

/**
 * The packaged epoll bundle with the native fragments the build made (and the nio bundle) in Felix and in Equinox, no Conduit
 * system property set: every bundle resolves, both fragments attach to their host and the framework loads the
 * library of this machine's architecture from its fragment ({@code Bundle-NativeCode}), the epoll provider service
 * is available,
 * {@code epoll} is selected by default over {@code nio}, and a TCP echo over epoll serves clients outside Conduit.
 * Linux only, like the epoll fragments the build makes: where the library cannot load the tests fail.
 *
 * <p>One framework for the class ({@link PerClass}; the tests only read and run traffic on their own event-loop
 * group): the JVM binds a library file to one class loader, and a second framework in the same JVM gets the
 * fragment's library from the same framework-storage path, so its {@code System.loadLibrary} fails with "already
 * loaded in another classloader" and {@code NativeLibraryLoader} falls back to extracting a private copy (seen
 * with a framework per method). That fallback works, but this class checks the {@code Bundle-NativeCode} path.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class EpollBundleTest {

    /** The fragment of this JVM's architecture, e.g. {@code io.conduit.epoll.linux.x86_64}. */
    static final String NATIVE_FRAGMENT = "io.conduit.epoll.linux." + NativeLibraryLoader.arch();

    @Inject
    private BundleContext context;

    @Configuration
    public Option[] config() {
        return options(ItestOptions.base(), ItestOptions.ours("conduit.itest.nioJar"), ItestOptions.epoll());
    }

    @Before
    public void allBundlesStarted() {
        Osgi.assertAllBundlesActive(context);
    }

    @Test
    public void theNativeFragmentIsAttachedAndTheFrameworkLoadsTheLibraryFromIt() throws Exception {
        Bundle host = Osgi.bundle(context, "io.conduit.epoll");
        // every fragment the build made is installed; each one is a resolved fragment
        List<String> expected = new ArrayList<>(ItestFiles.epollFragments());
        assertTrue(NATIVE_FRAGMENT + " is among the built fragments " + expected, expected.contains(NATIVE_FRAGMENT));
        for (String name : expected) {
            assertEquals(name, Bundle.RESOLVED, Osgi.bundle(context, name).getState());
        }

        BundleWiring hostWiring = host.adapt(BundleWiring.class);
        assertNotNull("io.conduit.epoll has a wiring", hostWiring);
        List<String> attached = new ArrayList<>();
        for (BundleWire wire : hostWiring.getProvidedWires(HostNamespace.HOST_NAMESPACE)) {
            attached.add(wire.getRequirer().getSymbolicName());
        }
        // the other architecture's fragment, where built, attaches too (its Bundle-NativeCode clause ends in the
        // optional "*"), and is harmless: no clause of it matches this machine, so the framework selects no library
        // from it (below)
        attached.sort(null);
        expected.sort(null);
        assertEquals("fragments attached to io.conduit.epoll", expected, attached);

        assertLoadedFromTheFragment(host);
    }

    /**
     * Asserts that {@code Epoll.loadedHow()} of the epoll bundle {@code host} (package-private; read reflectively)
     * says the library came through the framework's {@code findLibrary}, i.e. the fragment's
     * {@code Bundle-NativeCode}, not by extraction or from {@code java.library.path}.
     */
    static void assertLoadedFromTheFragment(Bundle host) throws Exception {
        Method loadedHow = host.loadClass("io.conduit.epoll.Epoll").getDeclaredMethod("loadedHow");
        loadedHow.setAccessible(true);
        assertEquals("how the epoll library was loaded",
                "System.loadLibrary(\"conduit_epoll_" + NativeLibraryLoader.arch() + "\") from io.conduit.epoll.Epoll",
                loadedHow.invoke(null));
    }

    @Test
    public void theEpollProviderServiceIsAvailableAndSelectedByDefault() throws Exception {
        Bundle host = Osgi.bundle(context, "io.conduit.epoll");
        Collection<ServiceReference<TransportProvider>> refs = context.getServiceReferences(TransportProvider.class,
                "(conduit.transport.name=epoll)");
        assertEquals("epoll provider services", 1, refs.size());
        ServiceReference<TransportProvider> ref = refs.iterator().next();
        assertEquals("registered by the epoll bundle", host, ref.getBundle());
        assertEquals(Boolean.TRUE, ref.getProperty("conduit.transport.available"));
        assertEquals(100, ref.getProperty("service.ranking"));
        TransportProvider provider = context.getService(ref);
        try {
            assertTrue("epoll is native", provider.isNative());
            provider.availability().ensureAvailability("epoll"); // throws with every load attempt when unavailable
        } finally {
            context.ungetService(ref);
        }

        TransportSelection s = Transports.selection();
        assertEquals(s.explain(), "epoll", s.selectedName());
        assertEquals(TransportSelection.PreferenceSource.DEFAULT, s.preferenceSource());
        assertTrue(s.explain(), s.warnings().isEmpty());
        Transport t = Transports.selected();
        assertEquals("epoll", t.name());
        assertEquals("io.conduit.epoll", FrameworkUtil.getBundle(t.getClass()).getSymbolicName());
        ServiceReference<Transport> published = context.getServiceReference(Transport.class);
        assertNotNull("Transport service", published);
        assertEquals("epoll", published.getProperty("conduit.transport.name"));
        assertEquals(Boolean.TRUE, published.getProperty("conduit.transport.native"));

        String transports = Osgi.gogo(context, "conduit:transports");
        assertTrue(transports, transports.matches("(?s).*\\* epoll\\s+native\\s+100\\s+yes\\s.*"));
        assertTrue(transports, transports.matches("(?s).*\\n  nio\\s+java\\s+10\\s+yes\\s.*"));
        assertTrue(transports, transports.contains("selected: epoll"));
        String report = Diagnostics.report();
        assertTrue(report, report.contains("epoll: native, ranking 100, available, SELECTED"));
    }

    @Test
    public void tcpEchoOverEpollInsideTheFrameworkServesSocketClients() throws Exception {
        Transport epoll = Transports.selected();
        assertEquals("epoll", epoll.name());
        try (EventLoopGroup group = epoll.newEventLoopGroup(2)) {
            Channel server = SocketEcho.bind(epoll, group);
            assertEquals("epoll", server.transportName());
            String channels = Osgi.gogo(context, "conduit:channels");
            assertTrue(channels, channels.matches("(?s).*\\n" + server.id() + "\\s+epoll\\s.*"));

            long verified = SocketEcho.exchange((InetSocketAddress) server.localAddress(), 4, 32);
            assertEquals(4L * 32 * SocketEcho.CHUNK_BYTES, verified);
            System.out.println("epoll echo inside " + context.getBundle(0).getSymbolicName() + ": " + verified
                    + " bytes verified over 4 connections");
            server.close().get(10, TimeUnit.SECONDS);
        }
    }
}
