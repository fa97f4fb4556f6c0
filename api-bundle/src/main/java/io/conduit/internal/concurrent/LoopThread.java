package io.conduit.internal.concurrent;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The platform thread of an event loop. It carries per-loop resources (pool caches, scratch iovec arrays)
 * in plain fields instead of {@code ThreadLocal}s, so nothing pins a bundle's class loader after the loop
 * stops: {@link #runTerminationHooks()} frees them when the loop ends.
 *
 * <p>Threading: {@link #attachment(Object, Supplier)} and {@link #onTermination(Runnable)} are called only by
 * this thread itself; the fields are therefore unguarded.
 */
public final class LoopThread extends Thread {

    private final ArrayList<Object> keys = new ArrayList<>(4);      // confined to this thread
    private final ArrayList<Object> values = new ArrayList<>(4);    // confined to this thread
    private final List<Runnable> terminationHooks = new ArrayList<>(); // confined to this thread

    public LoopThread(ThreadGroup group, Runnable target, String name) {
        super(group, target, name);
    }

    /** @return the current thread as a loop thread, or {@code null} when it is not one */
    public static LoopThread current() {
        return Thread.currentThread() instanceof LoopThread t ? t : null;
    }

    /**
     * Returns this thread's value for {@code key}, creating it with {@code factory} on first use.
     * Must be called on this thread.
     */
    public <T> T attachment(Object key, Supplier<T> factory) {
        for (int i = 0; i < keys.size(); i++) {
            if (keys.get(i) == key) {
                @SuppressWarnings("unchecked")
                T value = (T) values.get(i);
                return value;
            }
        }
        T value = factory.get();
        keys.add(key);
        values.add(value);
        return value;
    }

    /** Registers {@code hook} to run on this thread when its loop terminates. Must be called on this thread. */
    public void onTermination(Runnable hook) {
        terminationHooks.add(hook);
    }

    /** Runs and forgets every termination hook and attachment; called by the loop as its last act. */
    public void runTerminationHooks() {
        for (Runnable hook : terminationHooks) {
            try {
                hook.run();
            } catch (Throwable t) {
                System.getLogger(LoopThread.class.getName()).log(System.Logger.Level.WARNING,
                        "termination hook failed on " + getName(), t);
            }
        }
        terminationHooks.clear();
        keys.clear();
        values.clear();
    }
}
