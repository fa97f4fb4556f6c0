package io.conduit.transport.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Dictionary;
import java.util.List;

import io.conduit.internal.transport.FakeProvider;
import org.junit.jupiter.api.Test;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceRegistration;

/** {@link ProviderRegistration}: the service properties the registry reads, and a tolerant unregister. */
class ProviderRegistrationTest {

    private final List<Dictionary<String, ?>> registered = new ArrayList<>();
    private final List<Object> services = new ArrayList<>();
    private int unregisterCalls;

    @Test
    void registersNameAvailabilityAndRankingAndUnregistersOnce() {
        TransportProvider provider = FakeProvider.available("fake-native", true, 77);
        ProviderRegistration r = ProviderRegistration.register(context(false), provider);
        assertSame(provider, services.get(0));
        Dictionary<String, ?> props = registered.get(0);
        assertEquals("fake-native", props.get(ProviderRegistration.NAME_PROPERTY));
        assertEquals(Boolean.TRUE, props.get(ProviderRegistration.AVAILABLE_PROPERTY));
        assertEquals(77, props.get(Constants.SERVICE_RANKING));
        r.unregister();
        assertEquals(1, unregisterCalls);
    }

    @Test
    void anUnavailableProviderIsRegisteredAsUnavailable() {
        ProviderRegistration.register(context(false),
                FakeProvider.unavailable("fake-missing", true, 5, "no library"));
        assertEquals(Boolean.FALSE, registered.get(0).get(ProviderRegistration.AVAILABLE_PROPERTY));
    }

    @Test
    void unregisterAfterTheFrameworkRemovedTheServiceIsQuiet() {
        ProviderRegistration r = ProviderRegistration.register(context(true),
                FakeProvider.available("fake", false, 1));
        r.unregister(); // the registration throws IllegalStateException: already unregistered
        assertEquals(1, unregisterCalls);
    }

    @SuppressWarnings("unchecked")
    private BundleContext context(boolean alreadyUnregistered) {
        ServiceRegistration<TransportProvider> registration = (ServiceRegistration<TransportProvider>) Proxy
                .newProxyInstance(getClass().getClassLoader(), new Class<?>[] {ServiceRegistration.class},
                        (proxy, method, args) -> {
                            if (method.getName().equals("unregister")) {
                                unregisterCalls++;
                                if (alreadyUnregistered) {
                                    throw new IllegalStateException("service already unregistered");
                                }
                                return null;
                            }
                            throw new UnsupportedOperationException(method.getName());
                        });
        return (BundleContext) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {BundleContext.class}, (proxy, method, args) -> {
                    if (method.getName().equals("registerService") && args[0] == TransportProvider.class) {
                        services.add(args[1]);
                        registered.add((Dictionary<String, ?>) args[2]);
                        return registration;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }
}
