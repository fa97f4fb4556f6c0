package io.conduit.internal.osgi;

import java.lang.reflect.Array;
import java.util.Collection;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.StringJoiner;

import io.conduit.internal.transport.ConduitProperties;
import io.conduit.internal.transport.TransportRegistry;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.cm.ConfigurationException;
import org.osgi.service.cm.ManagedService;

/**
 * Applies the Configuration Admin configuration of PID {@value #PID} to the registry: property {@value #TRANSPORT}
 * (same syntax as {@code conduit.transport}; a {@code String}, or a {@code String[]}/collection that is joined
 * with commas) replaces the system property, property {@value #STRICT} ({@code Boolean} or {@code "true"}/
 * {@code "false"}) replaces {@code conduit.transport.strict}. A missing or blank property, or deleting the
 * configuration, returns to the system property. The metatype description is
 * {@code OSGI-INF/metatype/io.conduit.transport.xml}.
 *
 * <p>Only loaded when the package {@code org.osgi.service.cm} is wired to the API bundle (its import is
 * optional); {@link ConduitActivator} checks that first. Configuration Admin calls {@link #updated} on its own
 * thread, one call at a time.
 */
final class TransportConfiguration implements ManagedService {

    /** The configuration PID. */
    static final String PID = "io.conduit.transport";
    /** The preference property. */
    static final String TRANSPORT = "transport";
    /** The strict property. */
    static final String STRICT = "strict";

    private static final System.Logger LOG = System.getLogger(TransportRegistry.LOGGER_NAME);

    private final TransportRegistry registry;

    /** Written by Configuration Admin's thread, read by {@link #unregister}: whether a configuration was applied. */
    private volatile boolean applied;

    TransportConfiguration(TransportRegistry registry) {
        this.registry = registry;
    }

    /** Registers the managed service; returns a handle whose {@code run()} unregisters it. */
    static Runnable register(BundleContext context, TransportRegistry registry) {
        TransportConfiguration binding = new TransportConfiguration(registry);
        Dictionary<String, Object> props = new Hashtable<>();
        props.put(Constants.SERVICE_PID, PID);
        props.put(Constants.SERVICE_DESCRIPTION, "Conduit transport selection (io.conduit.transport)");
        ServiceRegistration<ManagedService> reg = context.registerService(ManagedService.class, binding, props);
        return () -> binding.unregister(reg);
    }

    private void unregister(ServiceRegistration<ManagedService> reg) {
        try {
            reg.unregister();
        } catch (IllegalStateException alreadyGone) {
            // the framework unregisters a stopping bundle's services itself
        }
        if (applied) {
            registry.setOverrides(null, null);
        }
    }

    @Override
    public void updated(Dictionary<String, ?> properties) throws ConfigurationException {
        if (properties == null) {
            if (applied) {
                LOG.log(System.Logger.Level.INFO, "configuration " + PID + " deleted; conduit.transport and "
                        + "conduit.transport.strict apply again");
            }
            applied = false;
            registry.setOverrides(null, null);
            return;
        }
        String transport = text(properties.get(TRANSPORT));
        Boolean strict;
        try {
            strict = bool(properties.get(STRICT));
        } catch (IllegalArgumentException e) {
            throw new ConfigurationException(STRICT, e.getMessage(), e);
        }
        try {
            registry.setOverrides(transport, strict);
        } catch (IllegalArgumentException e) {
            throw new ConfigurationException(TRANSPORT, "configuration " + PID + ": " + e.getMessage(), e);
        }
        applied = true;
    }

    /** @return the preference text, or {@code null} for a missing or blank value */
    static String text(Object value) {
        if (value == null) {
            return null;
        }
        String s;
        if (value instanceof Collection) {
            StringJoiner j = new StringJoiner(",");
            for (Object o : (Collection<?>) value) {
                j.add(String.valueOf(o));
            }
            s = j.toString();
        } else if (value.getClass().isArray()) {
            StringJoiner j = new StringJoiner(",");
            for (int i = 0, n = Array.getLength(value); i < n; i++) {
                j.add(String.valueOf(Array.get(value, i)));
            }
            s = j.toString();
        } else {
            s = value.toString();
        }
        return s.isBlank() ? null : s;
    }

    /** @return the strict flag, or {@code null} for a missing or blank value */
    static Boolean bool(Object value) {
        if (value == null || value instanceof Boolean) {
            return (Boolean) value;
        }
        String s = value.toString();
        if (s.isBlank()) {
            return null;
        }
        if (s.trim().equalsIgnoreCase("true")) {
            return Boolean.TRUE;
        }
        if (s.trim().equalsIgnoreCase("false")) {
            return Boolean.FALSE;
        }
        throw new IllegalArgumentException("configuration " + PID + " property " + STRICT + "='" + s
                + "' is not a boolean; allowed values: true, false (case-insensitive), or leave it out to use "
                + ConduitProperties.STRICT);
    }
}
