package io.conduit.internal.osgi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import io.conduit.internal.config.ConduitProperties;
import io.conduit.internal.transport.RecordingLogger;
import io.conduit.internal.transport.TransportRegistry;
import io.conduit.transport.Availability;
import io.conduit.transport.spi.TransportProvider;
import org.junit.jupiter.api.Test;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.FrameworkUtil;
import org.osgi.framework.ServiceEvent;
import org.osgi.framework.ServiceListener;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.ServiceRegistration;

/**
 * The activator in a framework made of proxies: a bundle context that hands out provider services and service
 * events, a system bundle whose state a test sets. What is checked is which selection warnings the registry logs
 * while providers come and go around start, stop and a framework shutdown.
 */
class ConduitActivatorTest {

    private final Map<String, String> props = new ConcurrentHashMap<>();
    private final RecordingLogger log = new RecordingLogger();
    private final TransportRegistry registry = new TransportRegistry(p -> List.of(),
            () -> ConduitProperties.of(new HashMap<>(props)), log);
    private volatile int systemState = Bundle.ACTIVE;
    /** The provider services "registered" in the framework, in the order the framework lists them. */
    private final Map<ServiceReference<?>, TransportProvider> services = new LinkedHashMap<>();
    /** The service listeners the trackers added, with their filters. */
    private final List<Map.Entry<ServiceListener, String>> serviceListeners = new CopyOnWriteArrayList<>();
    private final Bundle system = proxy(Bundle.class, (m, a) -> switch (m.getName()) {
        case "getState" -> systemState;
        case "getSymbolicName" -> "system.bundle";
        default -> null;
    });
    private final BundleContext context = proxy(BundleContext.class, this::context);

    private final TransportProvider epoll = TestProviders.provider("epoll", true, 100, Availability.available());
    private final TransportProvider nio = TestProviders.provider("nio", false, 10, Availability.available());

    @SuppressWarnings("unchecked")
    private static <T> T proxy(Class<T> type, Handler handler) {
        return (T) Proxy.newProxyInstance(ConduitActivatorTest.class.getClassLoader(), new Class<?>[] {type},
                (self, m, a) -> switch (m.getName()) {
                    case "equals" -> self == a[0];
                    case "hashCode" -> System.identityHashCode(self);
                    case "toString" -> type.getSimpleName() + "@" + System.identityHashCode(self);
                    default -> handler.handle(m, a);
                });
    }

    private interface Handler {
        Object handle(Method m, Object[] args) throws Exception;
    }

    private Object context(Method m, Object[] a) throws Exception {
        switch (m.getName()) {
            case "getBundle":
                return system;
            case "createFilter":
                return FrameworkUtil.createFilter((String) a[0]);
            case "addServiceListener":
                serviceListeners.add(Map.entry((ServiceListener) a[0], a.length > 1 ? String.valueOf(a[1]) : ""));
                return null;
            case "removeServiceListener":
                serviceListeners.removeIf(e -> e.getKey() == a[0]);
                return null;
            case "getServiceReferences":
                if (TransportProvider.class.getName().equals(a[0]) && !services.isEmpty()) {
                    return services.keySet().toArray(new ServiceReference<?>[0]);
                }
                return null;
            case "getService":
                return services.get(a[0]);
            case "ungetService":
                return true;
            case "registerService":
                return proxy(ServiceRegistration.class, (mm, aa) -> null);
            default:
                return m.getReturnType() == boolean.class ? false : null;
        }
    }

    private ServiceReference<?> provide(TransportProvider p) {
        Bundle owner = proxy(Bundle.class, (m, a) -> m.getName().equals("getSymbolicName") ? "io.conduit." + p.name()
                : null);
        ServiceReference<?> ref = proxy(ServiceReference.class, (m, a) -> m.getName().equals("getBundle") ? owner
                : null);
        services.put(ref, p);
        return ref;
    }

    /** The provider's bundle stops: the framework tells the trackers, then forgets the service. */
    private void withdraw(TransportProvider p) {
        ServiceReference<?> ref = services.entrySet().stream().filter(e -> e.getValue() == p).findFirst()
                .orElseThrow().getKey();
        for (Map.Entry<ServiceListener, String> l : serviceListeners) {
            if (l.getValue().contains(TransportProvider.class.getName())) {
                l.getKey().serviceChanged(new ServiceEvent(ServiceEvent.UNREGISTERING, ref));
            }
        }
        services.remove(ref);
    }

    @Test
    void providersGoingAwayWhileTheFrameworkStopsAreNotReported() {
        props.put(ConduitProperties.TRANSPORT, "epoll,nio");
        provide(epoll);
        provide(nio);
        ConduitActivator activator = new ConduitActivator(registry);
        activator.start(context);
        assertEquals("epoll", registry.selected().name());

        systemState = Bundle.STOPPING; // exit 0: the transport bundles stop before the API bundle
        withdraw(epoll);
        withdraw(nio);
        activator.stop(context);
        assertEquals(List.of(), log.warnings());
    }

    @Test
    void aProviderWhoseBundleStopsIsNotRegisteredNowNotUnknown() {
        provide(epoll);
        provide(nio);
        ConduitActivator activator = new ConduitActivator(registry);
        activator.start(context);
        new ConduitCommands(registry).use("epoll");

        withdraw(epoll);
        assertEquals(List.of("transport 'epoll' in the transport preference override='epoll' is not registered now"
                + " (its bundle stopped?); registered transports: nio; skipped until it is registered again"),
                log.warnings());
        activator.stop(context);
        assertEquals(1, log.warnings().size(), log.warnings().toString());
    }

    @Test
    void stoppingTheApiBundleReportsNothingAndLeavesWarningsOnForWhoeverStillUsesTheApi() {
        props.put(ConduitProperties.TRANSPORT, "epoll,nio");
        provide(epoll);
        provide(nio);
        ConduitActivator activator = new ConduitActivator(registry);
        activator.start(context);
        activator.stop(context);
        assertEquals(List.of(), log.warnings());

        registry.setPreference("bogus");
        assertEquals(1, log.warnings().size(), log.warnings().toString());
        assertTrue(log.warnings().get(0).startsWith("unknown transport bogus"), log.warnings().toString());
    }

    /**
     * Stopping the API bundle withdraws every provider in one step: listeners see one change, from epoll to none,
     * never an intermediate nio they would move to.
     */
    @Test
    void stoppingTheApiBundleWithdrawsEveryProviderInOneSelectionChange() {
        provide(epoll);
        provide(nio);
        ConduitActivator activator = new ConduitActivator(registry);
        activator.start(context);
        List<String> changes = new CopyOnWriteArrayList<>();
        registry.addListener((previous, current) -> changes.add((previous == null ? "(none)" : previous.name())
                + " -> " + (current == null ? "(none)" : current.name())));
        int[] providerEvents = {0};
        registry.addProviderListener(() -> providerEvents[0]++);
        activator.stop(context);
        assertEquals(List.of("epoll -> (none)"), changes);
        assertEquals(1, providerEvents[0], "one provider event");
        assertEquals(List.of(), registry.providers());
    }

    @Test
    void restartingTheApiBundleInARunningFrameworkDoesNotReportTransportsItIsStillAdding() {
        props.put(ConduitProperties.TRANSPORT, "epoll,nio");
        provide(nio); // listed first by the framework: the tracker adds nio, then epoll
        provide(epoll);
        ConduitActivator first = new ConduitActivator(registry);
        first.start(context);
        first.stop(context);
        ConduitActivator second = new ConduitActivator(registry);
        second.start(context);
        assertEquals("epoll", registry.selected().name());
        second.stop(context);
        assertEquals(List.of(), log.warnings());
    }
}
