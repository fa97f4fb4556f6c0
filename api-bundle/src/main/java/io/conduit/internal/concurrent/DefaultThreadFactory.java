package io.conduit.internal.concurrent;

import java.util.Objects;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Makes non-daemon {@link LoopThread}s named {@code <prefix>-<group#>-<loop#>}: the group number counts
 * factories (from 1, JVM-wide), the loop number counts threads of this factory (from 0).
 */
public final class DefaultThreadFactory implements ThreadFactory {

    private static final AtomicInteger GROUPS = new AtomicInteger();

    private final String prefix;
    private final int groupNumber;
    private final AtomicInteger nextLoop = new AtomicInteger();

    public DefaultThreadFactory(String prefix) {
        this.prefix = Objects.requireNonNull(prefix, "prefix");
        this.groupNumber = GROUPS.incrementAndGet();
    }

    @Override
    public Thread newThread(Runnable r) {
        LoopThread t = new LoopThread(null, r, prefix + "-" + groupNumber + "-" + nextLoop.getAndIncrement());
        t.setDaemon(false);
        t.setPriority(Thread.NORM_PRIORITY);
        return t;
    }

    @Override
    public String toString() {
        return "DefaultThreadFactory[" + prefix + "-" + groupNumber + "]";
    }
}
