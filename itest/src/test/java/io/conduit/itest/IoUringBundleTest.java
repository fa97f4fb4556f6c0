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
import io.conduit.transport.Transport;
import io.conduit.transport.TransportSelection;
import io.conduit.transport.Transports;
import io.conduit.transport.spi.NativeLibraryLoader;
import io.conduit.transport.spi.TransportProvider;
import org.junit.After;
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
 * The packaged io_uring bundle with the native fragments the build made, beside the epoll and nio bundles, in Felix
 * and in Equinox: the fragments attach to {@code io.conduit.iouring}, the framework loads the library of this
 * machine's architecture from its fragment ({@code Bundle-NativeCode}), the provider service says io_uring is
 * available, {@code auto} still selects epoll (io_uring ranks below it), {@code conduit:use io_uring} selects
 * it, and a TCP echo over it serves clients outside Conduit. Linux only, like the fragments: where the library cannot
 * load, or the kernel refuses io_uring, the tests fail with the probe's cause; they never skip.
 *
 * <p>One framework for the class ({@link PerClass}), for the reason {@link EpollBundleTest} gives.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class IoUringBundleTest {

    /** The fragment of this JVM's architecture, e.g. {@code io.conduit.iouring.linux.x86_64}. */
    static final String NATIVE_FRAGMENT = "io.conduit.iouring.linux." + NativeLibraryLoader.arch();

    @Inject
    private BundleContext context;

    @Configuration
    public Option[] config() {
        return options(ItestOptions.base(), ItestOptions.ours("conduit.itest.nioJar"), ItestOptions.epoll(),
                ItestOptions.iouring());
    }

    @Before
    public void allBundlesStarted() {
        Osgi.assertAllBundlesActive(context);
    }

    @After
    public void dropThePreference() {
        Transports.setPreference(null);
    }

    @Test
    public void theNativeFragmentIsAttachedAndTheFrameworkLoadsTheLibraryFromIt() throws Exception {
        Bundle host = Osgi.bundle(context, "io.conduit.iouring");
        List<String> expected = new ArrayList<>(ItestFiles.iouringFragments());
        assertTrue(NATIVE_FRAGMENT + " is among the built fragments " + expected, expected.contains(NATIVE_FRAGMENT));
        for (String name : expected) {
            assertEquals(name, Bundle.RESOLVED, Osgi.bundle(context, name).getState());
        }
        BundleWiring hostWiring = host.adapt(BundleWiring.class);
        assertNotNull("io.conduit.iouring has a wiring", hostWiring);
        List<String> attached = new ArrayList<>();
        for (BundleWire wire : hostWiring.getProvidedWires(HostNamespace.HOST_NAMESPACE)) {
            attached.add(wire.getRequirer().getSymbolicName());
        }
        attached.sort(null);
        expected.sort(null);
        assertEquals("fragments attached to io.conduit.iouring", expected, attached);

        // the provider probes on first use; availability first, so a failure names the probe's cause
        Transports.get("io_uring");
        assertLoadedFromTheFragment(host);
    }

    /** What {@code IoUring.loadedHow()} says when the framework loaded the library from the fragment. */
    static final String FROM_THE_FRAGMENT = "System.loadLibrary(\"conduit_iouring_" + NativeLibraryLoader.arch()
            + "\") from io.conduit.iouring.IoUring";

    /**
     * Asserts that the io_uring bundle {@code host} loaded its library through the framework's {@code findLibrary},
     * i.e. the fragment's {@code Bundle-NativeCode}, not by extraction or from {@code java.library.path}.
     */
    static void assertLoadedFromTheFragment(Bundle host) throws Exception {
        assertEquals("how the io_uring library was loaded", FROM_THE_FRAGMENT, loadedHow(host));
    }

    /** @return {@code IoUring.loadedHow()} of {@code host} (package-private; read reflectively) */
    static String loadedHow(Bundle host) throws Exception {
        Method loadedHow = host.loadClass("io.conduit.iouring.IoUring").getDeclaredMethod("loadedHow");
        loadedHow.setAccessible(true);
        return String.valueOf(loadedHow.invoke(null));
    }

    @Test
    public void theProviderIsAvailableButAutoStillSelectsEpoll() throws Exception {
        Bundle host = Osgi.bundle(context, "io.conduit.iouring");
        Collection<ServiceReference<TransportProvider>> refs = context.getServiceReferences(TransportProvider.class,
                "(conduit.transport.name=io_uring)");
        assertEquals("io_uring provider services", 1, refs.size());
        ServiceReference<TransportProvider> ref = refs.iterator().next();
        assertEquals("registered by the io_uring bundle", host, ref.getBundle());
        assertEquals(50, ref.getProperty("service.ranking"));
        TransportProvider provider = context.getService(ref);
        try {
            assertTrue("io_uring is native", provider.isNative());
            // throws with the probe's cause (library, kernel, io_uring_disabled, seccomp) when unavailable
            provider.availability().ensureAvailability("io_uring");
        } finally {
            context.ungetService(ref);
        }
        assertEquals(Boolean.TRUE, ref.getProperty("conduit.transport.available"));

        TransportSelection s = Transports.selection();
        assertEquals(s.explain(), "epoll", s.selectedName());
        String transports = Osgi.gogo(context, "conduit:transports");
        assertTrue(transports, transports.matches("(?s).*\\n  io_uring\\s+native\\s+50\\s+yes\\s.*"));
        assertTrue(transports, transports.contains("selected: epoll"));
    }

    @Test
    public void tcpEchoOverIoUringInsideTheFrameworkServesSocketClients() throws Exception {
        Transport iouring = Transports.get("io_uring");
        assertEquals("io_uring", iouring.name());
        assertEquals("io.conduit.iouring", FrameworkUtil.getBundle(iouring.getClass()).getSymbolicName());
        try (EventLoopGroup group = iouring.newEventLoopGroup(2)) {
            Channel server = SocketEcho.bind(iouring, group);
            assertEquals("io_uring", server.transportName());
            String channels = Osgi.gogo(context, "conduit:channels");
            assertTrue(channels, channels.matches("(?s).*\\n" + server.id() + "\\s+io_uring\\s.*"));

            long verified = SocketEcho.exchange((InetSocketAddress) server.localAddress(), 4, 32);
            assertEquals(4L * 32 * SocketEcho.CHUNK_BYTES, verified);
            System.out.println("io_uring echo inside " + context.getBundle(0).getSymbolicName() + ": " + verified
                    + " bytes verified over 4 connections");
            server.close().get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    public void conduitUseSelectsIoUringAndWithoutArgumentGivesEpollBack() throws Exception {
        String use = Osgi.gogo(context, "conduit:use io_uring");
        assertTrue(use, use.contains("preference set to 'io_uring'"));
        TransportSelection s = Transports.selection();
        assertEquals(s.explain(), "io_uring", s.selectedName());
        Transport selected = Transports.selected();
        assertEquals("io.conduit.iouring", FrameworkUtil.getBundle(selected.getClass()).getSymbolicName());
        Osgi.await("the Transport service to name io_uring", () -> publishedName().equals("io_uring"),
                this::publishedName);
        assertTrue(Osgi.gogo(context, "conduit:transports").contains("selected: io_uring"));

        String cleared = Osgi.gogo(context, "conduit:use");
        assertTrue(cleared, cleared.contains("run-time preference cleared"));
        assertEquals(Transports.selection().explain(), "epoll", Transports.selected().name());
        Osgi.await("the Transport service to name epoll again", () -> publishedName().equals("epoll"),
                this::publishedName);
    }

    /** @return the name the published {@link Transport} service carries, or {@code "none"} */
    private String publishedName() {
        ServiceReference<Transport> published = context.getServiceReference(Transport.class);
        return published == null ? "none" : String.valueOf(published.getProperty("conduit.transport.name"));
    }
}
