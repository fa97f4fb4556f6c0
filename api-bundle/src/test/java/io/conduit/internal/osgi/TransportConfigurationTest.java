package io.conduit.internal.osgi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;

import io.conduit.internal.transport.TransportRegistry;
import io.conduit.transport.Availability;
import io.conduit.transport.TransportSelection;
import org.junit.jupiter.api.Test;
import org.osgi.service.cm.ConfigurationException;

/** The ManagedService of PID io.conduit.transport, called directly (no framework, no Configuration Admin). */
class TransportConfigurationTest {

    private final TransportRegistry registry = TestProviders.registry(
            TestProviders.provider("alpha", false, 30, Availability.available()),
            TestProviders.provider("beta", false, 20, Availability.available()),
            TestProviders.provider("gone", true, 100, Availability.unavailable(new UnsatisfiedLinkError("no lib"))));
    private final TransportConfiguration binding = new TransportConfiguration(registry);

    private static Dictionary<String, Object> props(Object... kv) {
        Dictionary<String, Object> d = new Hashtable<>();
        for (int i = 0; i < kv.length; i += 2) {
            d.put((String) kv[i], kv[i + 1]);
        }
        return d;
    }

    @Test
    void transportPropertyOverridesAndDeletionReverts() throws Exception {
        binding.updated(props("transport", "beta"));
        assertEquals("beta", registry.selected().name());
        assertEquals(TransportSelection.PreferenceSource.OVERRIDE, registry.selection().preferenceSource());

        binding.updated(null);
        assertNull(registry.preferenceOverride());
        assertEquals("alpha", registry.selected().name());
    }

    @Test
    void arraysAndCollectionsAreJoinedAsAnOrderedList() throws Exception {
        binding.updated(props("transport", new String[] {"gone", "beta"}));
        assertEquals("gone,beta", registry.preferenceOverride());
        assertEquals("beta", registry.selected().name());
        binding.updated(props("transport", List.of("alpha")));
        assertEquals("alpha", registry.preferenceOverride());
    }

    @Test
    void blankOrMissingTransportUsesTheSystemProperty() throws Exception {
        binding.updated(props("transport", "beta"));
        binding.updated(props("transport", "  "));
        assertNull(registry.preferenceOverride());
        binding.updated(props("service.pid", "io.conduit.transport"));
        assertNull(registry.preferenceOverride());
    }

    @Test
    void strictOverridesTheSystemPropertyUntilDeleted() throws Exception {
        binding.updated(props("transport", "gone", "strict", "TRUE"));
        TransportSelection s = registry.selection();
        assertTrue(s.strict());
        assertFalse(s.selected().isPresent(), s.explain());
        assertTrue(s.failure().getCause() instanceof UnsatisfiedLinkError, s.explain());

        binding.updated(props("transport", "gone", "strict", Boolean.FALSE));
        assertEquals("alpha", registry.selected().name(), "falls back to the highest-ranked available");

        binding.updated(null);
        assertNull(registry.strictOverride());
        assertFalse(registry.selection().strict());
    }

    @Test
    void malformedValuesAreRejectedNamingThePropertyAndChangeNothing() throws Exception {
        binding.updated(props("transport", "beta"));
        ConfigurationException e = assertThrows(ConfigurationException.class,
                () -> binding.updated(props("transport", "beta,,alpha")));
        assertEquals("transport", e.getProperty());
        assertTrue(e.getReason().contains("has an empty entry"), e.getReason());
        assertEquals("beta", registry.preferenceOverride());

        e = assertThrows(ConfigurationException.class, () -> binding.updated(props("strict", "yes")));
        assertEquals("strict", e.getProperty());
        assertTrue(e.getReason().contains("allowed values: true, false"), e.getReason());
        assertEquals("beta", registry.preferenceOverride());
    }
}
