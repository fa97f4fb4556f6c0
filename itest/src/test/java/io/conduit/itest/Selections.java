package io.conduit.itest;

import java.io.IOException;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.function.BooleanSupplier;

import io.conduit.transport.ManagedServer;
import io.conduit.transport.Transports;
import org.osgi.service.cm.ConfigurationAdmin;

/** Steps of the swap itests: the Configuration Admin preference, waiting for the selection and for a server. */
final class Selections {

    /** The Configuration Admin PID of the transport preference. */
    static final String PID = "io.conduit.transport";

    private Selections() {
    }

    /** Sets the preference ({@code transport} of {@link #PID}); Configuration Admin applies it asynchronously. */
    static void setTransport(ConfigurationAdmin configAdmin, String name) throws IOException {
        Dictionary<String, Object> props = new Hashtable<>();
        props.put("transport", name);
        configAdmin.getConfiguration(PID, null).update(props);
    }

    /** @return whether {@code name} is selected now; {@code false} while nothing is */
    static boolean selectedIs(String name) {
        try {
            return name.equals(Transports.selected().name());
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** Waits until {@code name} is selected and {@code server} listens on that very transport. */
    static void awaitServerOn(ManagedServer server, String name) {
        awaitTrue("the server to run on " + name,
                () -> selectedIs(name) && server.transport() == Transports.selected());
    }

    /** {@link Osgi#await} where a {@link RuntimeException} of {@code condition} counts as {@code false}. */
    static void awaitTrue(String what, BooleanSupplier condition) {
        Osgi.await(what, () -> {
            try {
                return condition.getAsBoolean();
            } catch (RuntimeException e) {
                return false;
            }
        }, () -> Transports.selection().explain());
    }

    /** @return a started daemon thread named {@code name} running {@code r} */
    static Thread startDaemon(String name, Runnable r) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
        return t;
    }
}
