package io.conduit.itest;

import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;

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
}
