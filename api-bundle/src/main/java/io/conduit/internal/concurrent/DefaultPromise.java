package io.conduit.internal.concurrent;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.conduit.concurrent.BlockingOperationException;
import io.conduit.concurrent.EventExecutor;
import io.conduit.concurrent.Future;
import io.conduit.concurrent.FutureListener;
import io.conduit.concurrent.Promise;

/**
 * The promise used everywhere in Conduit.
 *
 * <p>State lives in {@link #result}: {@code null} = pending, {@link #UNCANCELLABLE} = pending and no longer
 * cancellable, {@link #SUCCESS_NULL} = succeeded with {@code null}, a {@link Failure} = failed or cancelled,
 * anything else = succeeded with that value. All state changes and the listener list are guarded by
 * {@code this}; the state is volatile, so the queries ({@code isDone}, {@code cause}, ...) read it without the lock;
 * listeners are notified outside the lock, once, in the order they were added, on
 * {@link #executor()} (inline when already on it, or when it is {@code null}).
 *
 * @param <V> the result type
 */
public class DefaultPromise<V> implements Promise<V> {

    private static final System.Logger LOG = System.getLogger(DefaultPromise.class.getName());
    private static final Object SUCCESS_NULL = new Object();
    private static final Object UNCANCELLABLE = new Object();

    /** A failed (or cancelled) outcome. */
    private record Failure(Throwable cause) {
    }

    private final EventExecutor executor;
    private volatile Object result;                         // written under this; read without it by snapshot()
    /** {@code null}, one {@link FutureListener}, or a {@link ListenerList}; guarded by this; null once notified. */
    private Object listeners;
    private boolean notifying;                              // guarded by this
    private int waiters;                                    // guarded by this
    private Stage<V> stage;                                 // guarded by this

    /**
     * @param executor runs the listeners and is checked by the blocking methods; {@code null} runs listeners
     *        on the completing thread
     */
    public DefaultPromise(EventExecutor executor) {
        this.executor = executor;
    }

    /**
     * The executor that runs the listeners and that the blocking methods check; every internal use goes through
     * this method, so a subclass may resolve it late (e.g. a channel's close future, whose event loop is known
     * only once the channel is registered). It must not change once it returned a non-{@code null} value.
     */
    @Override
    public EventExecutor executor() {
        return executor;
    }

    @Override
    public Promise<V> setSuccess(V value) {
        if (!trySuccess(value)) {
            throw new IllegalStateException("promise already complete: " + this);
        }
        return this;
    }

    @Override
    public boolean trySuccess(V value) {
        return complete(value == null ? SUCCESS_NULL : value);
    }

    @Override
    public Promise<V> setFailure(Throwable cause) {
        if (!tryFailure(cause)) {
            throw new IllegalStateException("promise already complete: " + this, cause);
        }
        return this;
    }

    @Override
    public boolean tryFailure(Throwable cause) {
        return complete(new Failure(Objects.requireNonNull(cause, "cause")));
    }

    @Override
    public boolean setUncancellable() {
        synchronized (this) {
            if (result == null) {
                result = UNCANCELLABLE;
                return true;
            }
            return !(result instanceof Failure f && f.cause instanceof CancellationException);
        }
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        synchronized (this) {
            if (result != null) {
                return false;
            }
        }
        return complete(new Failure(new CancellationException("cancelled")));
    }

    private boolean complete(Object outcome) {
        synchronized (this) {
            if (result != null && result != UNCANCELLABLE) {
                return false;
            }
            if (result == UNCANCELLABLE && outcome instanceof Failure f && f.cause instanceof CancellationException) {
                return false;
            }
            result = outcome;
            if (waiters > 0) {
                notifyAll();
            }
            if (listeners == null) {
                return true;
            }
        }
        notifyListeners();
        return true;
    }

    @Override
    public boolean isDone() {
        Object r = snapshot();
        return r != null && r != UNCANCELLABLE;
    }

    @Override
    public boolean isSuccess() {
        Object r = snapshot();
        return r != null && r != UNCANCELLABLE && !(r instanceof Failure);
    }

    @Override
    public boolean isCancelled() {
        return snapshot() instanceof Failure f && f.cause instanceof CancellationException;
    }

    @Override
    public boolean isCancellable() {
        return snapshot() == null;
    }

    @Override
    public Throwable cause() {
        return snapshot() instanceof Failure f ? f.cause : null;
    }

    @Override
    @SuppressWarnings("unchecked")
    public V getNow() {
        Object r = snapshot();
        if (r == null || r == UNCANCELLABLE || r == SUCCESS_NULL || r instanceof Failure) {
            return null;
        }
        return (V) r;
    }

    /** The state as one volatile read: every change happens under {@code this}, so a reader needs no lock. */
    private Object snapshot() {
        return result;
    }

    @Override
    public Promise<V> addListener(FutureListener<? super V> listener) {
        Objects.requireNonNull(listener, "listener");
        synchronized (this) {
            if (!isDoneLocked() || listeners != null || notifying) {
                // pending; or completion notification in progress: keep order by queueing behind it
                addLocked(listener);
                return this;
            }
        }
        notifyOne(listener);
        return this;
    }

    @Override
    public Promise<V> removeListener(FutureListener<? super V> listener) {
        synchronized (this) {
            if (listeners == listener) {
                listeners = null;
            } else if (listeners instanceof ListenerList list) {
                list.remove(listener);
            }
        }
        return this;
    }

    /** Most promises get one listener (a write's, a connect's): it is kept without a list. */
    private void addLocked(FutureListener<? super V> listener) {
        if (listeners == null) {
            listeners = listener;
        } else if (listeners instanceof ListenerList list) {
            list.add(listener);
        } else {
            ListenerList list = new ListenerList();
            list.add((FutureListener<?>) listeners);
            list.add(listener);
            listeners = list;
        }
    }

    /** More than one listener, in the order they were added. */
    private static final class ListenerList extends ArrayList<FutureListener<?>> {
        private static final long serialVersionUID = 1L;

        ListenerList() {
            super(4);
        }
    }

    private boolean isDoneLocked() {
        return result != null && result != UNCANCELLABLE;
    }

    private void notifyListeners() {
        EventExecutor executor = executor();
        if (executor == null || executor.inEventLoop()) {
            drainListeners();
        } else {
            try {
                executor.execute(this::drainListeners);
            } catch (RuntimeException rejected) {
                // the executor is gone: notify here rather than never
                drainListeners();
            }
        }
    }

    private void drainListeners() {
        for (;;) {
            Object batch;
            synchronized (this) {
                if (notifying || listeners == null) {
                    return;
                }
                batch = listeners;
                listeners = null;
                notifying = true;
            }
            try {
                if (batch instanceof ListenerList list) {
                    for (FutureListener<?> l : list) {
                        invoke(l);
                    }
                } else {
                    invoke((FutureListener<?>) batch);
                }
            } finally {
                synchronized (this) {
                    notifying = false;
                }
            }
        }
    }

    private void notifyOne(FutureListener<? super V> listener) {
        EventExecutor executor = executor();
        if (executor == null || executor.inEventLoop()) {
            invoke(listener);
        } else {
            try {
                executor.execute(() -> invoke(listener));
            } catch (RuntimeException rejected) {
                invoke(listener);
            }
        }
    }

    @SuppressWarnings("unchecked")
    private void invoke(FutureListener<?> listener) {
        try {
            ((FutureListener<? super V>) listener).operationComplete(this);
        } catch (Throwable t) {
            LOG.log(System.Logger.Level.WARNING, "listener " + listener + " of " + this + " threw", t);
        }
    }

    private void checkNotOnExecutor() {
        EventExecutor executor = executor();
        if (executor != null && executor.inEventLoop()) {
            throw new BlockingOperationException("waiting for a pending promise on its own event loop thread "
                    + Thread.currentThread().getName() + " would dead-lock; add a listener instead");
        }
    }

    @Override
    public Promise<V> await() throws InterruptedException {
        if (isDone()) {
            return this;
        }
        checkNotOnExecutor();
        synchronized (this) {
            while (!isDoneLocked()) {
                waiters++;
                try {
                    wait();
                } finally {
                    waiters--;
                }
            }
        }
        return this;
    }

    @Override
    public boolean await(long timeout, TimeUnit unit) throws InterruptedException {
        if (isDone()) {
            return true;
        }
        if (timeout <= 0) {
            return false; // a poll, not a wait: allowed on the executor's own thread too
        }
        checkNotOnExecutor();
        long remaining = unit.toNanos(timeout);
        long deadline = System.nanoTime() + remaining;
        synchronized (this) {
            while (!isDoneLocked()) {
                if (remaining <= 0) {
                    return false;
                }
                waiters++;
                try {
                    TimeUnit.NANOSECONDS.timedWait(this, remaining);
                } finally {
                    waiters--;
                }
                remaining = deadline - System.nanoTime();
            }
            return true;
        }
    }

    @Override
    public Promise<V> sync() throws InterruptedException {
        await();
        Throwable cause = cause();
        if (cause != null) {
            throwUnchecked(cause);
        }
        return this;
    }

    @SuppressWarnings("unchecked")
    private static <E extends Throwable> void throwUnchecked(Throwable t) throws E {
        throw (E) t;
    }

    @Override
    public V get() throws InterruptedException, ExecutionException {
        await();
        return report();
    }

    @Override
    public V get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        if (!await(timeout, unit)) {
            throw new TimeoutException("not complete after " + timeout + " " + unit);
        }
        return report();
    }

    private V report() throws ExecutionException {
        Throwable cause = cause();
        if (cause == null) {
            return getNow();
        }
        if (cause instanceof CancellationException ce) {
            throw ce;
        }
        throw new ExecutionException(cause);
    }

    @Override
    public CompletionStage<V> toCompletionStage() {
        Stage<V> cf;
        synchronized (this) {
            if (stage != null) {
                return stage;
            }
            cf = stage = new Stage<>(this);
        }
        addListener(f -> {
            if (f.isSuccess()) {
                cf.completeFromPromise(getNow());
            } else {
                cf.completeExceptionallyFromPromise(f.cause());
            }
        });
        return cf;
    }

    /**
     * The {@link CompletionStage} view. It is a {@link CompletableFuture} so that a cancelled promise shows as a
     * cancelled stage ({@code isCancelled()}, {@code get()} throwing {@link CancellationException}), which a
     * {@code minimalCompletionStage()} copy would turn into a plain failure. Only the promise completes it:
     * {@code complete}/{@code obtrude*} throw; {@code cancel} cancels the promise.
     */
    private static final class Stage<V> extends CompletableFuture<V> {
        private final DefaultPromise<V> promise;

        Stage(DefaultPromise<V> promise) {
            this.promise = promise;
        }

        void completeFromPromise(V value) {
            super.complete(value);
        }

        void completeExceptionallyFromPromise(Throwable cause) {
            super.completeExceptionally(cause);
        }

        @Override
        public <U> CompletableFuture<U> newIncompleteFuture() {
            return new CompletableFuture<>();
        }

        @Override
        public boolean complete(V value) {
            throw readOnly();
        }

        @Override
        public boolean completeExceptionally(Throwable ex) {
            throw readOnly();
        }

        @Override
        public void obtrudeValue(V value) {
            throw readOnly();
        }

        @Override
        public void obtrudeException(Throwable ex) {
            throw readOnly();
        }

        @Override
        public CompletableFuture<V> completeAsync(java.util.function.Supplier<? extends V> supplier,
                java.util.concurrent.Executor executor) {
            throw readOnly();
        }

        @Override
        public CompletableFuture<V> completeOnTimeout(V value, long timeout, TimeUnit unit) {
            throw readOnly();
        }

        @Override
        public CompletableFuture<V> orTimeout(long timeout, TimeUnit unit) {
            throw readOnly();
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            if (promise.cancel(mayInterruptIfRunning)) {
                super.completeExceptionally(promise.cause());
            }
            return isCancelled();
        }

        private UnsupportedOperationException readOnly() {
            return new UnsupportedOperationException("this stage mirrors " + promise
                    + "; complete the promise instead (or use a dependent stage, e.g. thenApply)");
        }
    }

    @Override
    public String toString() {
        Object r = snapshot();
        String state = r == null || r == UNCANCELLABLE ? "pending"
                : r instanceof Failure f ? "failure(" + f.cause + ")"
                : "success(" + (r == SUCCESS_NULL ? null : r) + ")";
        return getClass().getSimpleName() + "@" + Integer.toHexString(hashCode()) + "[" + state + "]";
    }
}
