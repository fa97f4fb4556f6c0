package io.conduit.gateway.internal.config;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Dictionary;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.conduit.gateway.internal.status.GatewayStatus;
import org.osgi.framework.BundleContext;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * The echo and relay configurations Configuration Admin holds, whether or not a component runs for them, for
 * {@code conduit:gateway} while the network is not running (then no component is activated, and so none reports a
 * {@link GatewayStatus}).
 *
 * <p>The only class of the bundle that uses {@code org.osgi.service.cm}, an optional import: load it only after
 * checking that a Configuration Admin service is registered, and expect a {@link LinkageError} when the package is
 * not wired. Stateless and thread-safe.
 */
public final class Configurations {

    /** The service interface of Configuration Admin, looked up by name so that callers need no cm class. */
    public static final String CONFIGURATION_ADMIN = "org.osgi.service.cm.ConfigurationAdmin";

    private Configurations() {
    }

    /**
     * One echo or relay configuration.
     *
     * @param pid  its PID, e.g. {@code io.conduit.gateway.echo~default}
     * @param name its file name (e.g. {@code io.conduit.gateway.echo-default.cfg}), else its PID
     * @param kind {@code echo} or {@code relay}
     */
    public record Configured(String pid, String name, String kind) {
    }

    /**
     * @param context a valid bundle context
     * @return every configuration of the factory PIDs {@value EchoConfig#FACTORY_PID} and
     *         {@value RelayConfig#FACTORY_PID}, in Configuration Admin's order
     * @throws IOException when Configuration Admin cannot be asked (not registered, gone meanwhile, or its storage
     *                     failed); the message says which
     */
    public static List<Configured> list(BundleContext context) throws IOException {
        ServiceReference<ConfigurationAdmin> ref = context.getServiceReference(ConfigurationAdmin.class);
        ConfigurationAdmin admin = ref == null ? null : context.getService(ref);
        if (admin == null) {
            throw new IOException("Configuration Admin is not running (is org.apache.felix.configadmin started? see "
                    + "'lb')");
        }
        try {
            Configuration[] all = admin.listConfigurations("(|(service.factoryPid=" + EchoConfig.FACTORY_PID
                    + ")(service.factoryPid=" + RelayConfig.FACTORY_PID + "))");
            List<Configured> out = new ArrayList<>();
            for (Configuration c : all == null ? new Configuration[0] : all) {
                Map<String, Object> props = map(c.getProperties());
                props.putIfAbsent("service.pid", c.getPid());
                String kind = RelayConfig.FACTORY_PID.equals(c.getFactoryPid()) ? "relay" : "echo";
                out.add(new Configured(GatewayConfig.pid(props), GatewayConfig.name(props), kind));
            }
            return out;
        } catch (InvalidSyntaxException impossible) {
            throw new AssertionError(impossible);
        } finally {
            try {
                context.ungetService(ref);
            } catch (IllegalStateException stopping) {
                // the bundle is stopping: the framework releases it
            }
        }
    }

    private static Map<String, Object> map(Dictionary<String, Object> d) {
        Map<String, Object> m = new HashMap<>();
        if (d != null) {
            for (Enumeration<String> keys = d.keys(); keys.hasMoreElements(); ) {
                String k = keys.nextElement();
                m.put(k, d.get(k));
            }
        }
        return m;
    }
}
