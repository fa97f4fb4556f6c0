package io.conduit.internal.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.conduit.internal.config.ConduitProperties;
import io.conduit.transport.TransportSelection;
import org.junit.jupiter.api.Test;

/** {@link TransportRegistry#setOverrides}: preference and strict flag together (Configuration Admin). */
class RegistryOverridesTest {

    private final FakeProvider epoll = FakeProvider.unavailable("epoll", true, 100, "libconduit_epoll missing");
    private final FakeProvider nio = FakeProvider.available("nio", false, 10);
    private final TransportRegistry registry = new TransportRegistry(p -> List.of(epoll, nio),
            () -> ConduitProperties.of(Map.of(ConduitProperties.TRANSPORT, "epoll")));

    @Test
    void strictOverrideReplacesTheSystemPropertyAndNullRestoresIt() {
        assertEquals("nio", registry.selected().name(), "not strict: falls back");
        List<String> events = new CopyOnWriteArrayList<>();
        registry.addListener((prev, cur) -> events.add((prev == null ? null : prev.name()) + "->"
                + (cur == null ? null : cur.name())));

        registry.setOverrides(null, Boolean.TRUE);
        TransportSelection s = registry.selection();
        assertTrue(s.strict());
        assertEquals(TransportSelection.PreferenceSource.SYSTEM_PROPERTY, s.preferenceSource());
        assertFalse(s.selected().isPresent(), s.explain());
        assertEquals(Boolean.TRUE, registry.strictOverride());

        registry.setOverrides("nio", Boolean.TRUE);
        assertEquals("nio", registry.selected().name());
        assertEquals("nio", registry.preferenceOverride());

        registry.setOverrides(null, null);
        assertNull(registry.strictOverride());
        assertNull(registry.preferenceOverride());
        assertFalse(registry.selection().strict());
        assertEquals(List.of("nio->null", "null->nio"), events, "one event per change, none for no change");
    }

    @Test
    void malformedPreferenceChangesNothing() {
        registry.setOverrides("nio", Boolean.TRUE);
        assertThrows(IllegalArgumentException.class, () -> registry.setOverrides("nio,,epoll", Boolean.FALSE));
        assertEquals("nio", registry.preferenceOverride());
        assertEquals(Boolean.TRUE, registry.strictOverride());
    }

    @Test
    void setPreferenceKeepsTheStrictOverride() {
        registry.setOverrides(null, Boolean.TRUE);
        registry.setPreference("nio");
        assertEquals(Boolean.TRUE, registry.strictOverride());
        assertTrue(registry.selection().strict());
    }

    @Test
    void withReplacesOneProperty() {
        ConduitProperties p = ConduitProperties.of(Map.of(ConduitProperties.TRANSPORT, "nio"));
        assertEquals("true", p.with(ConduitProperties.STRICT, "true").raw(ConduitProperties.STRICT));
        assertEquals("nio", p.with(ConduitProperties.STRICT, "true").raw(ConduitProperties.TRANSPORT));
        assertNull(p.with(ConduitProperties.TRANSPORT, null).raw(ConduitProperties.TRANSPORT));
        assertEquals(p, p.with(ConduitProperties.STRICT, "x").with(ConduitProperties.STRICT, null));
        assertThrows(IllegalArgumentException.class, () -> p.with("conduit.unknown", "x"));
    }
}
