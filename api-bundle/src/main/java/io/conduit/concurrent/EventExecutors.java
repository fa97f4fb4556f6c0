package io.conduit.concurrent;

import java.util.Objects;
import java.util.concurrent.ThreadFactory;

import io.conduit.internal.concurrent.DefaultEventLoop;
import io.conduit.internal.concurrent.DefaultThreadFactory;
import io.conduit.internal.concurrent.MultithreadEventLoopGroup;
import io.conduit.internal.concurrent.VirtualThreads;

/**
 * Factories for executors that do no I/O: groups of plain event loops (for a handler's own executor, timers,
 * tests) and an executor on virtual threads (for handlers that block). I/O loops come from a transport
 * ({@code Transport.newEventLoopGroup}).
 */
public final class EventExecutors {

    private EventExecutors() {
    }

    /**
     * Creates a group of plain event loops. Each loop owns one non-daemon thread named
     * {@code <namePrefix>-<group#>-<loop#>}, started by its first task; {@code next()} is round-robin.
     * Close the group ({@link EventExecutorGroup#close()} or {@code shutdownGracefully}) to end the threads.
     *
     * @param nThreads number of loops, {@code >= 1}
     * @param namePrefix thread-name prefix, e.g. {@code "modbus-worker"}
     * @return the group
     * @throws IllegalArgumentException when {@code nThreads < 1}
     */
    public static EventLoopGroup newGroup(int nThreads, String namePrefix) {
        ThreadFactory factory = newThreadFactory(namePrefix);
        return new MultithreadEventLoopGroup<DefaultEventLoop>(nThreads,
                (group, i) -> new DefaultEventLoop(group, factory, namePrefix + "-loop-" + i));
    }

    /**
     * Creates a thread factory for event loops: non-daemon loop threads named {@code <namePrefix>-<group#>-<loop#>}
     * (group# counts factories from 1, loop# counts this factory's threads from 0). Loop threads carry per-loop
     * caches (buffer pools, {@link Recycler} stacks) that are freed when their loop terminates. Transports pass
     * it to {@code io.conduit.transport.spi.IoEventLoopGroup}.
     *
     * @param namePrefix thread-name prefix
     * @return a new factory
     */
    public static ThreadFactory newThreadFactory(String namePrefix) {
        return new DefaultThreadFactory(Objects.requireNonNull(namePrefix, "namePrefix"));
    }

    /**
     * Creates an executor that runs its tasks one at a time, in submission order (scheduled tasks in deadline
     * order), on a virtual thread named {@code name}: a task may block (I/O, locks, sleeps) without holding a
     * platform thread. The thread starts with the first task and ends when the executor is shut down; it is a
     * daemon thread, as all virtual threads are. {@link Recycler} does not pool on it.
     *
     * @param name the thread's name
     * @return the executor
     * @throws UnsupportedOperationException on a JVM older than 21 (virtual threads are Java 21+; Conduit is
     *         compiled for 17 and reaches them reflectively)
     */
    public static EventExecutor newVirtualThreadExecutor(String name) {
        Objects.requireNonNull(name, "name");
        return new DefaultEventLoop(null, VirtualThreads.factory(name), name);
    }

}
