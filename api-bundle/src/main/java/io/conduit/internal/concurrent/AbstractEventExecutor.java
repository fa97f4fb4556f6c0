package io.conduit.internal.concurrent;

import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.TimeUnit;

import io.conduit.concurrent.EventExecutor;
import io.conduit.concurrent.EventExecutorGroup;
import io.conduit.concurrent.Future;
import io.conduit.concurrent.Promise;

/**
 * Base of Conduit's executors: {@code submit} and {@code invokeAll}/{@code invokeAny} wrap tasks in a
 * {@link PromiseTask} (so every returned future is a Conduit {@link Future} whose listeners run on this
 * executor), promises and completed futures are {@link DefaultPromise}s, and the executor is its own
 * one-element group.
 */
public abstract class AbstractEventExecutor extends AbstractExecutorService implements EventExecutor {

    /** Parent group, or {@code null} when the executor stands alone; immutable. */
    private final EventExecutorGroup parent;

    protected AbstractEventExecutor(EventExecutorGroup parent) {
        this.parent = parent;
    }

    @Override
    public EventExecutorGroup parent() {
        return parent == null ? this : parent;
    }

    @Override
    public boolean inEventLoop() {
        return inEventLoop(Thread.currentThread());
    }

    @Override
    public Iterator<EventExecutor> iterator() {
        return List.<EventExecutor>of(this).iterator();
    }

    @Override
    public Future<?> shutdownGracefully() {
        return shutdownGracefully(DEFAULT_SHUTDOWN_QUIET_PERIOD_MILLIS, DEFAULT_SHUTDOWN_TIMEOUT_MILLIS,
                TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        if (inEventLoop()) {
            throw new io.conduit.concurrent.BlockingOperationException("close() on " + this
                    + " from its own thread would wait for itself; call shutdownGracefully() instead");
        }
        shutdownGracefully();
        terminationFuture().await();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        return terminationFuture().await(timeout, unit);
    }

    @Override
    public <V> Promise<V> newPromise() {
        return new DefaultPromise<>(this);
    }

    @Override
    public <V> Future<V> newSucceededFuture(V result) {
        DefaultPromise<V> p = new DefaultPromise<>(this);
        p.setSuccess(result);
        return p;
    }

    @Override
    public <V> Future<V> newFailedFuture(Throwable cause) {
        DefaultPromise<V> p = new DefaultPromise<>(this);
        p.setFailure(cause);
        return p;
    }

    @Override
    protected <T> RunnableFuture<T> newTaskFor(Runnable runnable, T value) {
        return new PromiseTask<>(this, runnable, value);
    }

    @Override
    protected <T> RunnableFuture<T> newTaskFor(Callable<T> callable) {
        return new PromiseTask<>(this, callable);
    }

    @Override
    public Future<?> submit(Runnable task) {
        return (Future<?>) super.submit(task);
    }

    @Override
    public <T> Future<T> submit(Runnable task, T result) {
        return (Future<T>) super.submit(task, result);
    }

    @Override
    public <T> Future<T> submit(Callable<T> task) {
        return (Future<T>) super.submit(task);
    }

    @Override
    public <T> List<java.util.concurrent.Future<T>> invokeAll(Collection<? extends Callable<T>> tasks)
            throws InterruptedException {
        checkNotInLoopForInvoke();
        return super.invokeAll(tasks);
    }

    @Override
    public <T> List<java.util.concurrent.Future<T>> invokeAll(Collection<? extends Callable<T>> tasks,
            long timeout, TimeUnit unit) throws InterruptedException {
        checkNotInLoopForInvoke();
        return super.invokeAll(tasks, timeout, unit);
    }

    @Override
    public <T> T invokeAny(Collection<? extends Callable<T>> tasks)
            throws InterruptedException, java.util.concurrent.ExecutionException {
        checkNotInLoopForInvoke();
        return super.invokeAny(tasks);
    }

    @Override
    public <T> T invokeAny(Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit)
            throws InterruptedException, java.util.concurrent.ExecutionException,
            java.util.concurrent.TimeoutException {
        checkNotInLoopForInvoke();
        return super.invokeAny(tasks, timeout, unit);
    }

    private void checkNotInLoopForInvoke() {
        if (inEventLoop()) {
            throw new io.conduit.concurrent.BlockingOperationException("invokeAll/invokeAny on " + this
                    + " from its own thread would wait for tasks only this thread can run; submit and add listeners instead");
        }
    }
}
