package io.conduit.itest;

import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import org.apache.felix.service.command.CommandProcessor;
import org.apache.felix.service.command.CommandSession;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.FrameworkEvent;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.wiring.FrameworkWiring;

/** Helpers that run inside the framework (in the test probe). */
final class Osgi {

    private Osgi() {
    }

    /**
     * Fails unless every bundle is ACTIVE, or RESOLVED for a fragment; the message names each bundle that is not,
     * with its state, so an unresolved bundle fails the test instead of being skipped silently.
     */
    static void assertAllBundlesActive(BundleContext context) {
        List<String> bad = new ArrayList<>();
        for (Bundle b : context.getBundles()) {
            boolean fragment = b.getHeaders().get(Constants.FRAGMENT_HOST) != null;
            int expected = fragment ? Bundle.RESOLVED : Bundle.ACTIVE;
            if (b.getState() != expected) {
                bad.add(b.getSymbolicName() + " " + b.getVersion() + " is " + state(b.getState()) + ", expected "
                        + state(expected) + (fragment ? " (fragment)" : "") + " [" + b.getLocation() + "]");
            }
        }
        assertTrue("bundles not started: " + bad, bad.isEmpty());
    }

    static Bundle bundle(BundleContext context, String symbolicName) {
        for (Bundle b : context.getBundles()) {
            if (symbolicName.equals(b.getSymbolicName())) {
                return b;
            }
        }
        throw new AssertionError("bundle " + symbolicName + " is not installed");
    }

    static String state(int state) {
        switch (state) {
            case Bundle.UNINSTALLED:
                return "UNINSTALLED";
            case Bundle.INSTALLED:
                return "INSTALLED (unresolved)";
            case Bundle.RESOLVED:
                return "RESOLVED";
            case Bundle.STARTING:
                return "STARTING";
            case Bundle.STOPPING:
                return "STOPPING";
            case Bundle.ACTIVE:
                return "ACTIVE";
            default:
                return "state " + state;
        }
    }

    /** Polls {@code condition} every 10 ms for at most 10 s (Configuration Admin delivers asynchronously). */
    static void await(String what, BooleanSupplier condition, Supplier<String> state) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("timed out after 10 s waiting for " + what + "; now: " + state.get());
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for " + what, e);
            }
        }
    }

    /**
     * Runs a Gogo command through the {@link CommandProcessor} service and returns what it returned as text.
     *
     * @throws AssertionError when Gogo is missing or the command fails (with its output)
     */
    static String gogo(BundleContext context, String command) {
        ServiceReference<CommandProcessor> ref = context.getServiceReference(CommandProcessor.class);
        if (ref == null) {
            throw new AssertionError("no Gogo CommandProcessor service");
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (CommandSession session = context.getService(ref).createSession(
                new ByteArrayInputStream(new byte[0]), out, out)) {
            return String.valueOf(session.execute(command));
        } catch (Exception e) {
            throw new AssertionError(command + " failed; output: " + out, e);
        } finally {
            context.ungetService(ref);
        }
    }

    /**
     * Refreshes {@code bundles} (and their dependents) through {@link FrameworkWiring#refreshBundles} and waits at
     * most 10 s for the framework's PACKAGES_REFRESHED event.
     */
    static void refresh(BundleContext context, Collection<Bundle> bundles) throws Exception {
        CompletableFuture<FrameworkEvent> done = new CompletableFuture<>();
        context.getBundle(Constants.SYSTEM_BUNDLE_LOCATION).adapt(FrameworkWiring.class)
                .refreshBundles(bundles, done::complete);
        FrameworkEvent event = done.get(10, TimeUnit.SECONDS);
        if (event.getType() != FrameworkEvent.PACKAGES_REFRESHED) {
            fail("refresh of " + bundles + " ended with framework event type " + event.getType() + ": "
                    + event.getThrowable());
        }
    }
}
