package io.conduit.internal.channel;

import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Runs blocking closes ({@code close(2)} with {@code SO_LINGER > 0}) off the event loops, on daemon threads
 * that exist only while such closes run (they end after 10 s idle). Thread-safe.
 */
public final class OffLoopCloser {

    private static final ThreadPoolExecutor EXECUTOR = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 10,
            TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
                Thread t = new Thread(r, "conduit-linger-close");
                t.setDaemon(true);
                return t;
            });

    private OffLoopCloser() {
    }

    /** Runs {@code close} on a closer thread. */
    public static void execute(Runnable close) {
        EXECUTOR.execute(close);
    }
}
