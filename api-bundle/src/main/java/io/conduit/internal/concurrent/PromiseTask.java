package io.conduit.internal.concurrent;

import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.RunnableFuture;

import io.conduit.concurrent.EventExecutor;

/**
 * A task whose outcome is published through its own promise: {@link #run()} makes the promise uncancellable,
 * calls the task and completes the promise with its result or failure. Cancelling before the run starts
 * prevents the run.
 *
 * @param <V> the result type
 */
public class PromiseTask<V> extends DefaultPromise<V> implements RunnableFuture<V> {

    /** The work; immutable. */
    final Callable<V> task;

    public PromiseTask(EventExecutor executor, Callable<V> task) {
        super(executor);
        this.task = Objects.requireNonNull(task, "task");
    }

    public PromiseTask(EventExecutor executor, Runnable task, V result) {
        this(executor, Executors.callable(Objects.requireNonNull(task, "task"), result));
    }

    @Override
    public void run() {
        if (!setUncancellable()) {
            return; // cancelled before it started
        }
        try {
            trySuccess(task.call());
        } catch (Throwable t) {
            tryFailure(t);
        }
    }

    @Override
    public String toString() {
        return super.toString() + "(task: " + task + ")";
    }
}
