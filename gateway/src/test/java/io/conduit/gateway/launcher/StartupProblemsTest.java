package io.conduit.gateway.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.util.Hashtable;
import java.util.List;

import io.conduit.gateway.services.GatewayServices;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;
import org.junit.jupiter.api.Test;

/**
 * The banner's count of problems includes the transport configuration. The banner once said {@code 0 problem(s)}
 * while {@code conf/io.conduit.transport.cfg} with {@code strict = yes} was rejected with a SEVERE line: the launcher
 * did not know. The API bundle now publishes the rejection (or the ignored keys) as a property of its
 * {@code ManagedService}, which {@link Startup} reads like the gateway's status services.
 */
class StartupProblemsTest {

    private static final String REJECTED = "configuration io.conduit.transport REJECTED, none of its values applied:"
            + " property strict='yes' is not a boolean; allowed values: true, false (any case), or no value to use"
            + " system property conduit.transport.strict";

    @Test
    void aRejectedTransportConfigurationIsABannerProblem() throws Exception {
        Startup s = new Startup(context(REJECTED));
        assertEquals(1, s.problems());
        assertTrue(s.lines().contains("  " + REJECTED), s.lines().toString());
    }

    @Test
    void noTransportConfigurationProblemCountsNothing() throws Exception {
        Startup s = new Startup(context(null));
        assertEquals(0, s.problems());
        assertEquals(List.of(), s.lines());
    }

    /** A started framework with only the system bundle, and the API bundle's ManagedService when it has a problem. */
    private static BundleContext context(String problem) {
        Bundle system = proxy(Bundle.class, (m, a) -> switch (m) {
            case "getState" -> Bundle.ACTIVE;
            case "getSymbolicName" -> "org.apache.felix.framework";
            case "getHeaders" -> new Hashtable<String, String>();
            default -> null; // adapt(FrameworkStartLevel): none
        });
        ServiceReference<?> managed = proxy(ServiceReference.class, (m, a) ->
                "getProperty".equals(m) && GatewayServices.TRANSPORT_CONFIGURATION_PROBLEM.equals(a[0]) ? problem : null);
        return proxy(BundleContext.class, (m, a) -> switch (m) {
            case "getBundle" -> system;
            case "getBundles" -> new Bundle[] {system};
            case "getAllServiceReferences" -> GatewayServices.MANAGED_SERVICE.equals(a[0]) && problem != null
                    && String.valueOf(a[1]).contains(GatewayServices.TRANSPORT_CONFIGURATION_PROBLEM)
                            ? new ServiceReference<?>[] {managed} : null;
            default -> null;
        });
    }

    private interface Answer {
        Object answer(String method, Object[] args);
    }

    @SuppressWarnings("unchecked")
    private static <T> T proxy(Class<T> type, Answer answer) {
        return (T) Proxy.newProxyInstance(StartupProblemsTest.class.getClassLoader(), new Class<?>[] {type},
                (p, m, a) -> answer.answer(m.getName(), a));
    }
}
