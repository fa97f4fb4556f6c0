package io.conduit.concurrent;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

import io.conduit.internal.concurrent.LoopThread;
import io.conduit.internal.config.ConduitProperties;

/**
 * A light-weight pool of hot objects (per-message tasks, write entries), one pool per event-loop thread.
 *
 * <p>Use: subclass with {@link #newObject(Handle)} (keep the handle in the object), take objects with
 * {@link #get()}, give each back once with {@link Handle#recycle(Object)} after clearing it.
 *
 * <ul>
 * <li>On an event-loop thread (a thread made by {@link EventExecutors#newThreadFactory(String)}, i.e. every
 * Conduit loop) {@code get()} takes from that thread's stack, which holds at most {@code maxCapacityPerThread}
 * objects (surplus recycled objects are left to the garbage collector). The stack lives on the loop thread,
 * not in a {@code ThreadLocal}, and is dropped when the loop terminates.</li>
 * <li>Recycling on the owner thread pushes onto its stack; recycling on another thread puts the object into the
 * owner's bounded multi-producer queue (again at most {@code maxCapacityPerThread}), which the owner drains on
 * its next {@code get()} that finds the stack empty.</li>
 * <li>On any other thread (plain platform threads, virtual threads) nothing is pooled: {@code get()} always
 * calls {@link #newObject(Handle)} and recycling only checks for double recycling.</li>
 * <li>System property {@value #MAX_CAPACITY_PROPERTY} (default {@value #DEFAULT_MAX_CAPACITY_PER_THREAD}), read when
 * the class is loaded, sets the capacity of recyclers made with {@link #Recycler()}; {@code 0} disables pooling
 * entirely. A malformed value (not a whole number from 0 up) is an error, as for every Conduit property: that
 * constructor throws {@link IllegalArgumentException} naming the property, and transport selection fails with it.</li>
 * </ul>
 *
 * <p>Keep one recycler per pooled type (a {@code static final} field): every instance has its own stack on every
 * loop thread that uses it, kept until that loop terminates.
 *
 * <p>Threading: {@link #get()} may be called on any thread; {@link Handle#recycle(Object)} on any thread, once per
 * {@code get()}.
 *
 * @param <T> the pooled type
 */
public abstract class Recycler<T> {

    /** Name of the system property with the default per-thread capacity; {@code 0} disables pooling. */
    public static final String MAX_CAPACITY_PROPERTY = "conduit.recycler.maxCapacityPerThread";
    /** Per-thread capacity when the property is not set. */
    public static final int DEFAULT_MAX_CAPACITY_PER_THREAD = 4096;

    /** The raw value of {@value #MAX_CAPACITY_PROPERTY} when the class was loaded, or {@code null}. */
    private static final String CONFIGURED_MAX_CAPACITY = System.getProperty(MAX_CAPACITY_PROPERTY);

    /**
     * Gives an object back to its pool.
     *
     * @param <T> the pooled type
     */
    public interface Handle<T> {
        /**
         * Returns {@code object} to the pool it came from. Any thread; the object must not be used afterwards.
         *
         * @param object the object {@link Recycler#newObject(Handle)} created with this handle
         * @throws IllegalStateException when the object was already recycled since it was last taken
         * @throws IllegalArgumentException when {@code object} is not the one this handle belongs to
         */
        void recycle(T object);
    }

    private final int maxCapacityPerThread;

    /**
     * A pool with the configured capacity ({@value #MAX_CAPACITY_PROPERTY}, default
     * {@value #DEFAULT_MAX_CAPACITY_PER_THREAD}).
     *
     * @throws IllegalArgumentException when {@value #MAX_CAPACITY_PROPERTY} is malformed (the message names it, its
     *         value and what is allowed)
     */
    protected Recycler() {
        this(maxCapacityFrom(CONFIGURED_MAX_CAPACITY));
    }

    /**
     * @param maxCapacityPerThread objects kept per loop thread (and queued per loop thread from other threads);
     *        {@code 0} disables pooling
     * @throws IllegalArgumentException when negative
     */
    protected Recycler(int maxCapacityPerThread) {
        if (maxCapacityPerThread < 0) {
            throw new IllegalArgumentException("maxCapacityPerThread " + maxCapacityPerThread + " must be >= 0 (0 disables pooling)");
        }
        this.maxCapacityPerThread = maxCapacityPerThread;
    }

    /**
     * Parses the value of {@value #MAX_CAPACITY_PROPERTY}.
     *
     * @param value the property value, or {@code null}
     * @return the capacity: {@value #DEFAULT_MAX_CAPACITY_PER_THREAD} for {@code null}, else the value, a whole number
     *         {@code >= 0}
     * @throws IllegalArgumentException for any other value (also an empty one), naming the property and what is allowed
     */
    static int maxCapacityFrom(String value) {
        return ConduitProperties.parseRecyclerCapacity(value);
    }

    /** @return the capacity per thread; {@code 0} when pooling is disabled */
    public final int maxCapacityPerThread() {
        return maxCapacityPerThread;
    }

    /**
     * Creates a new object for the pool. Called by {@link #get()} when the pool is empty.
     *
     * @param handle the handle the object must be recycled with
     * @return the new object, not {@code null}
     */
    protected abstract T newObject(Handle<T> handle);

    /**
     * @return a pooled object from the current loop thread's pool, or a new one (see the class javadoc for
     *         which threads pool)
     */
    public final T get() {
        LoopThread thread = maxCapacityPerThread == 0 ? null : LoopThread.current();
        if (thread == null) {
            DefaultHandle<T> h = new DefaultHandle<>(null);
            h.value = Objects.requireNonNull(newObject(h), "newObject returned null");
            return h.value;
        }
        Stack<T> stack = thread.attachment(this, () -> {
            Stack<T> s = new Stack<>(thread, maxCapacityPerThread);
            thread.onTermination(s::kill);
            return s;
        });
        DefaultHandle<T> h = stack.pop();
        if (h == null) {
            h = new DefaultHandle<>(stack);
            h.value = Objects.requireNonNull(newObject(h), "newObject returned null");
        } else {
            h.markInUse();
        }
        return h.value;
    }

    /** @return objects pooled on the current thread's stack (not counting the cross-thread queue); 0 off loop threads */
    final int pooledOnCurrentThread() {
        LoopThread thread = LoopThread.current();
        if (thread == null || maxCapacityPerThread == 0) {
            return 0;
        }
        return thread.attachment(this, () -> new Stack<T>(thread, maxCapacityPerThread)).size;
    }

    private static final class DefaultHandle<T> implements Handle<T> {
        private static final VarHandle STATE;
        private static final int IN_USE = 0;
        private static final int RECYCLED = 1;

        static {
            try {
                STATE = MethodHandles.lookup().findVarHandle(DefaultHandle.class, "state", int.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private final Stack<T> stack;   // the owner's pool, or null when not pooled; immutable
        T value;                        // set once by the owner right after newObject
        @SuppressWarnings("unused")
        private volatile int state;     // IN_USE or RECYCLED; CAS on recycle, set by the owner on reuse

        DefaultHandle(Stack<T> stack) {
            this.stack = stack;
        }

        void markInUse() {
            STATE.setRelease(this, IN_USE);
        }

        @Override
        public void recycle(T object) {
            if (object != value) {
                throw new IllegalArgumentException("cannot recycle " + object + " with the handle of " + value
                        + ": recycle each object with the handle its newObject call received");
            }
            if (!STATE.compareAndSet(this, IN_USE, RECYCLED)) {
                throw new IllegalStateException("object " + object + " was recycled twice; recycle it once per get()"
                        + " and do not use it after recycling");
            }
            if (stack != null) {
                if (Thread.currentThread() == stack.owner) {
                    stack.push(this);
                } else {
                    stack.pushFromOtherThread(this);
                }
            }
        }
    }

    /**
     * One loop thread's pool: an array stack confined to the owner plus a bounded queue for objects recycled by
     * other threads.
     */
    private static final class Stack<T> {
        final Thread owner;
        private final int maxCapacity;
        private DefaultHandle<?>[] elements = new DefaultHandle<?>[16];   // owner only
        int size;                                                         // owner only
        private final ConcurrentLinkedQueue<DefaultHandle<T>> foreign = new ConcurrentLinkedQueue<>(); // MPSC
        private final AtomicInteger foreignSize = new AtomicInteger();    // reserved slots of `foreign`
        private volatile boolean dead;                                    // set by the owner when its loop ends

        Stack(Thread owner, int maxCapacity) {
            this.owner = owner;
            this.maxCapacity = maxCapacity;
        }

        void kill() {
            dead = true;
            foreign.clear();
            elements = new DefaultHandle<?>[0];
            size = 0;
        }

        void push(DefaultHandle<T> h) {
            if (size >= maxCapacity || dead) {
                return; // full: the object is left to the garbage collector
            }
            if (size == elements.length) {
                elements = Arrays.copyOf(elements, Math.min(maxCapacity, Math.max(16, size * 2)));
            }
            elements[size++] = h;
        }

        void pushFromOtherThread(DefaultHandle<T> h) {
            if (dead) {
                return;
            }
            if (foreignSize.incrementAndGet() > maxCapacity) {
                foreignSize.decrementAndGet();
                return;
            }
            foreign.offer(h);
        }

        @SuppressWarnings("unchecked")
        DefaultHandle<T> pop() {
            if (size == 0) {
                DefaultHandle<T> h;
                while (size < maxCapacity && (h = foreign.poll()) != null) {
                    foreignSize.decrementAndGet();
                    push(h);
                }
                if (size == 0) {
                    return null;
                }
            }
            DefaultHandle<T> h = (DefaultHandle<T>) elements[--size];
            elements[size] = null;
            return h;
        }
    }
}
