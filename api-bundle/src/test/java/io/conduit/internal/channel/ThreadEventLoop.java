package io.conduit.internal.channel;

import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import io.conduit.concurrent.EventExecutor;
import io.conduit.concurrent.EventLoop;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.concurrent.Future;
import io.conduit.concurrent.Promise;
import io.conduit.concurrent.ScheduledFuture;
import io.conduit.internal.concurrent.DefaultPromise;

/** A tiny single-thread event loop for tests (no scheduling): runs tasks in submission order on one thread. */
final class ThreadEventLoop implements EventLoop {
    private static final Runnable STOP = () -> { };

    private final LinkedBlockingQueue<Runnable> queue = new LinkedBlockingQueue<>();
    private final Thread thread;
    private final DefaultPromise<Void> termination = new DefaultPromise<>(null);
    private volatile boolean shutdown;

    ThreadEventLoop(String name) {
        thread = new Thread(this::run, name);
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        try {
            for (;;) {
                Runnable task = queue.take();
                if (task == STOP) {
                    return;
                }
                try {
                    task.run();
                } catch (Throwable t) {
                    t.printStackTrace();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            termination.trySuccess(null);
        }
    }

    Thread thread() {
        return thread;
    }

    @Override
    public boolean inEventLoop() {
        return Thread.currentThread() == thread;
    }

    @Override
    public boolean inEventLoop(Thread t) {
        return t == thread;
    }

    @Override
    public EventLoopGroup parent() {
        return this;
    }

    @Override
    public <V> Promise<V> newPromise() {
        return new DefaultPromise<>(this);
    }

    @Override
    public <V> Future<V> newSucceededFuture(V result) {
        Promise<V> p = newPromise();
        p.trySuccess(result);
        return p;
    }

    @Override
    public <V> Future<V> newFailedFuture(Throwable cause) {
        Promise<V> p = newPromise();
        p.tryFailure(cause);
        return p;
    }

    @Override
    public void execute(Runnable command) {
        if (shutdown) {
            throw new RejectedExecutionException("shut down");
        }
        queue.add(command);
    }

    @Override
    public boolean isShuttingDown() {
        return shutdown;
    }

    @Override
    public Future<?> shutdownGracefully() {
        return shutdownGracefully(0, 0, TimeUnit.SECONDS);
    }

    @Override
    public Future<?> shutdownGracefully(long quietPeriod, long timeout, TimeUnit unit) {
        if (!shutdown) {
            shutdown = true;
            queue.add(STOP);
        }
        return termination;
    }

    @Override
    public Future<?> terminationFuture() {
        return termination;
    }

    @Override
    public void close() throws InterruptedException {
        shutdownGracefully();
        thread.join(10_000);
    }

    @Override
    public Iterator<EventExecutor> iterator() {
        return List.<EventExecutor>of(this).iterator();
    }

    @Override
    public Future<?> submit(Runnable task) {
        return submit(() -> {
            task.run();
            return null;
        });
    }

    @Override
    public <T> Future<T> submit(Runnable task, T result) {
        return submit(() -> {
            task.run();
            return result;
        });
    }

    @Override
    public <T> Future<T> submit(Callable<T> task) {
        Promise<T> p = newPromise();
        execute(() -> {
            try {
                p.trySuccess(task.call());
            } catch (Throwable t) {
                p.tryFailure(t);
            }
        });
        return p;
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        throw new UnsupportedOperationException();
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        throw new UnsupportedOperationException();
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
        throw new UnsupportedOperationException();
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void shutdown() {
        shutdownGracefully();
    }

    @Override
    public List<Runnable> shutdownNow() {
        shutdownGracefully();
        return List.of();
    }

    @Override
    public boolean isShutdown() {
        return shutdown;
    }

    @Override
    public boolean isTerminated() {
        return termination.isDone();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        return termination.await(timeout, unit);
    }

    @Override
    public <T> List<java.util.concurrent.Future<T>> invokeAll(Collection<? extends Callable<T>> tasks) {
        throw new UnsupportedOperationException();
    }

    @Override
    public <T> List<java.util.concurrent.Future<T>> invokeAll(Collection<? extends Callable<T>> tasks, long timeout,
            TimeUnit unit) {
        throw new UnsupportedOperationException();
    }

    @Override
    public <T> T invokeAny(Collection<? extends Callable<T>> tasks) {
        throw new UnsupportedOperationException();
    }

    @Override
    public <T> T invokeAny(Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit) {
        throw new UnsupportedOperationException();
    }
}
