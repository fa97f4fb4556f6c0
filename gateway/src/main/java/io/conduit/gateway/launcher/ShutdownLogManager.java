package io.conduit.gateway.launcher;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.LogManager;

/**
 * The launcher's java.util.logging {@link LogManager}: it keeps the log handlers open while the launcher's shutdown
 * hook stops the framework, so what the bundles log on the way out (the WARNING about connections closed at once, the
 * held-back counts of rate-limited lines) is printed on Ctrl-C and SIGTERM as on {@code exit 0}.
 *
 * <p>The story: the JDK's LogManager has a shutdown hook of its own that calls {@link #reset()}, which closes every
 * handler. The JVM runs all shutdown hooks at once, so that reset raced the launcher's hook and usually won: a
 * SIGTERM with stalled clients ended with status 143 after about 3 s but without the documented WARNING line.
 *
 * <p>Named by the system property {@code java.util.logging.manager} ({@link LogFormat#useShutdownLogManager()}),
 * before anything logs; the class is on the launcher's class path, so the system class loader finds it. A {@code reset()} while the
 * JVM shuts down waits until {@link #hookDone()} is called, or at most {@link #DEFER_LIMIT_MILLIS} ms, and then resets
 * as usual. Every other {@code reset()} resets at once. Thread-safe.
 */
public final class ShutdownLogManager extends LogManager {

    /**
     * Longest wait of a reset during shutdown, in milliseconds: more than the launcher's bound on stopping the
     * framework (10 s, {@link FrameworkBoot#stop}), so a stuck stop cannot keep the JVM alive through the logging.
     */
    static final long DEFER_LIMIT_MILLIS = 15_000;

    /** Released when the launcher's shutdown hook has stopped the framework. */
    private static final CountDownLatch HOOK_DONE = new CountDownLatch(1);
    /** The launcher's shutdown hook, which calls {@link #hookDone()}; {@code null} (no wait) until registered. */
    private static volatile Thread hook;

    /** Called by the JDK's LogManager through the system property; public for that. */
    public ShutdownLogManager() {
    }

    /**
     * @param shutdownHook the launcher's shutdown hook, just registered; it calls {@link #hookDone()} when it ends
     */
    static void hookRegistered(Thread shutdownHook) {
        hook = shutdownHook;
    }

    /** The launcher's shutdown hook has stopped the framework: a deferred reset now goes ahead. */
    static void hookDone() {
        HOOK_DONE.countDown();
    }

    /** During JVM shutdown with the launcher's hook registered, waits for that hook first; see the class comment. */
    @Override
    public void reset() throws SecurityException {
        Thread h = hook;
        if (h != null && h != Thread.currentThread() && shuttingDown()) {
            try {
                HOOK_DONE.await(DEFER_LIMIT_MILLIS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        super.reset();
    }

    /** @return whether the JVM runs its shutdown hooks: it then refuses new ones */
    private static boolean shuttingDown() {
        Thread probe = new Thread(() -> { }, "conduit-gateway-shutdown-probe");
        try {
            Runtime.getRuntime().addShutdownHook(probe);
        } catch (IllegalStateException shutdownInProgress) {
            return true;
        }
        Runtime.getRuntime().removeShutdownHook(probe);
        return false;
    }
}
