package io.conduit.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.conduit.transport.spi.TransportProvider;
import org.junit.jupiter.api.Test;

/** The static facade over the global registry; restores the global state it changes. */
class TransportsTest {

    private static Transport fakeTransport(String name) {
        return (Transport) Proxy.newProxyInstance(TransportsTest.class.getClassLoader(),
                new Class<?>[] {Transport.class}, (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "name":
                        case "toString":
                            return name;
                        case "isNative":
                            return false;
                        case "hashCode":
                            return System.identityHashCode(proxy);
                        case "equals":
                            return proxy == args[0];
                        default:
                            throw new UnsupportedOperationException(method.getName());
                    }
                });
    }

    private static TransportProvider provider(String name, int ranking) {
        Transport t = fakeTransport(name);
        return new TransportProvider() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public boolean isNative() {
                return false;
            }

            @Override
            public int ranking() {
                return ranking;
            }

            @Override
            public Availability availability() {
                return Availability.available();
            }

            @Override
            public Transport transport() {
                return t;
            }
        };
    }

    @Test
    void facadeRegistersSelectsOverridesAndNotifies() {
        List<String> events = new CopyOnWriteArrayList<>();
        TransportChangeListener listener = (previous, current) -> events.add(
                (previous == null ? "-" : previous.name()) + ">" + (current == null ? "-" : current.name()));
        TransportProvider a = provider("test-facade-a", 1_000_000);
        TransportProvider b = provider("test-facade-b", 999_999);
        Transports.addListener(listener);
        try {
            assertTrue(Transports.register(a));
            assertTrue(Transports.register(b));
            assertFalse(Transports.register(a));
            assertEquals("test-facade-a", Transports.selected().name());
            assertTrue(Transports.providers().contains(b));
            assertSame(b.transport(), Transports.get("test-facade-b"));

            Transports.setPreference("test-facade-b, test-facade-a");
            assertEquals("test-facade-b, test-facade-a", Transports.preference());
            assertEquals(TransportSelection.PreferenceSource.OVERRIDE, Transports.selection().preferenceSource());
            assertEquals("test-facade-b", Transports.selected().name());
            assertThrows(IllegalArgumentException.class, () -> Transports.setPreference(" "));
            Transports.setPreference(null);
            assertNull(Transports.preference());
            assertEquals("test-facade-a", Transports.selected().name());
        } finally {
            Transports.setPreference(null);
            Transports.unregister(a);
            Transports.unregister(b);
            Transports.removeListener(listener);
        }
        assertEquals("->test-facade-a", events.get(0));
        assertTrue(events.containsAll(List.of("test-facade-a>test-facade-b", "test-facade-b>test-facade-a")),
                events.toString());
        assertFalse(Transports.providers().contains(a));
        assertTrue(Diagnostics.report().contains("Selection"));
    }
}
