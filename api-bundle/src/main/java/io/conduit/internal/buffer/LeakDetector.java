package io.conduit.internal.buffer;

import java.lang.ref.PhantomReference;
import java.lang.ref.ReferenceQueue;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Iterator;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import io.conduit.internal.config.ConduitProperties;

/**
 * Finds buffers that became unreachable without being released ({@code conduit.leakDetection}).
 *
 * <p>Design: a tracked buffer gets a {@link Record}, a {@link PhantomReference} to it registered with a
 * {@link ReferenceQueue}, kept reachable by {@link #live} while the buffer is. Releasing the buffer closes the
 * record: it leaves {@link #live}, and the buffer drops it, so nothing reaches it any more and the collector frees
 * it like any other garbage — a reference object that is itself unreachable is never enqueued, so the record needs
 * no {@link PhantomReference#clear()} (a call into the JVM that cost a fifth of tracking in a profile). A record
 * that the garbage collector enqueues while still open therefore belongs to a leaked buffer (one that is enqueued
 * after all is ignored: it is no longer in {@link #live}). The queue is polled when a buffer is tracked (no extra
 * thread); each leak is reported once, as one {@code WARNING} on the {@code System.Logger} {@value #LOGGER_NAME}
 * (or to the listener given to the constructor, which tests use).
 *
 * <p>Cost: {@link Mode#DISABLED} returns {@code null} at once, and an untracked buffer's {@code touch} is a null
 * check. {@link Mode#SIMPLE} tracks about 1 in {@value #SAMPLING_INTERVAL} allocations, and at most
 * {@value #MAX_SAMPLES_PER_SECOND} a second per allocator: an untracked allocation costs one
 * {@link ThreadLocalRandom} number masked to the interval (its state lives in the {@code Thread} object itself, not in
 * a {@code ThreadLocal}) and nothing else; {@link Mode#PARANOID} tracks all. A tracked buffer keeps its allocation
 * stack and the stacks of its last {@value #MAX_TOUCHES} {@code touch(hint)} calls; taking a stack
 * ({@code Throwable.fillInStackTrace}) is most of what tracking costs — about 20 µs on an event loop whose caches
 * the I/O keeps cold, 12–15 % of a streaming loop's user CPU at 1 in 128 — which is why only the sampled buffers pay
 * it, and why the rate cap bounds it to well under 1 % of a core whatever the allocation rate (measured:
 * {@code docs/benchmarks.md}, leak detection). The cap changes nothing below
 * {@value #SAMPLING_INTERVAL} × {@value #MAX_SAMPLES_PER_SECOND} allocations a second; above it a leak on a busy
 * path is still found within seconds, a very rare one more slowly: use {@code paranoid} to hunt it.
 *
 * <p>A leaked pooled buffer's memory is not returned to the pool (nothing proves that no {@code ByteBuffer} view
 * of it is still in use); the report says so.
 */
final class LeakDetector {

    static final String PROPERTY = ConduitProperties.LEAK_DETECTION;
    static final String LOGGER_NAME = "io.conduit.buffer.leak";
    static final int SAMPLING_INTERVAL = 128;
    /** {@link Mode#SIMPLE}: most buffers tracked (stacks taken) per second by one detector. */
    static final int MAX_SAMPLES_PER_SECOND = 32;
    static final int MAX_TOUCHES = 4;

    /** How many buffers are tracked. */
    enum Mode {
        DISABLED, SIMPLE, PARANOID;

        /**
         * Parses a {@value LeakDetector#PROPERTY} value by the rule of every Conduit property
         * ({@link ConduitProperties#parseLeakDetection}); {@code null} (unset) means {@link #SIMPLE}.
         *
         * @throws IllegalArgumentException for any other value (also an empty one), naming the property and listing
         *         the allowed values
         */
        static Mode parse(String value) {
            return valueOf(ConduitProperties.parseLeakDetection(value).toUpperCase(Locale.ROOT));
        }
    }

    private final Mode mode;
    /** {@code SAMPLING_INTERVAL - 1} in {@link Mode#SIMPLE} (a power of two less one), {@code 0} otherwise. */
    private final int samplingMask;
    private final Consumer<String> reporter;
    /** Leaks reported; incremented once per leak, rare. */
    private final java.util.concurrent.atomic.AtomicLong reports = new java.util.concurrent.atomic.AtomicLong();
    /** {@link Mode#SIMPLE}: the least time between two tracked buffers, in nanoseconds ({@code 0}: no cap). */
    private final long sampleSpacingNanos;
    /**
     * {@link Mode#SIMPLE}: the {@link System#nanoTime()} from which the next sampled allocation may be tracked;
     * moved forward by compare-and-set, so of several threads sampling at once one takes the turn.
     */
    private final AtomicLong nextSampleNanos;
    private final ReferenceQueue<Object> queue = new ReferenceQueue<>();
    /** Open records; keeps each PhantomReference reachable until closed. Thread-safe set. */
    private final Set<Record> live = ConcurrentHashMap.newKeySet();

    /** @param reporter receives each leak report; {@code null} logs it as one WARNING on {@value #LOGGER_NAME} */
    LeakDetector(Mode mode, Consumer<String> reporter) {
        this(mode, reporter, 1_000_000_000L / MAX_SAMPLES_PER_SECOND);
    }

    /**
     * @param sampleSpacingNanos {@link Mode#SIMPLE}: least time between two tracked buffers; {@code 0} tracks every
     *        sampled one (tests)
     */
    LeakDetector(Mode mode, Consumer<String> reporter, long sampleSpacingNanos) {
        this.mode = mode;
        this.sampleSpacingNanos = sampleSpacingNanos;
        this.nextSampleNanos = new AtomicLong(System.nanoTime());
        this.samplingMask = mode == Mode.SIMPLE ? SAMPLING_INTERVAL - 1 : 0;
        this.reporter = reporter != null ? reporter
                : report -> System.getLogger(LOGGER_NAME).log(System.Logger.Level.WARNING, report);
    }

    Mode mode() {
        return mode;
    }

    /**
     * Decides whether to track {@code buffer}; when it does, first reports the leaks found since the last time.
     *
     * @return its record, or {@code null} when it is not tracked
     */
    Record track(Object buffer) {
        if (mode == Mode.DISABLED) {
            return null;
        }
        int mask = samplingMask;
        if (mask != 0 && (ThreadLocalRandom.current().nextInt() & mask) != 0) {
            return null; // not sampled: SAMPLING_INTERVAL is a power of two, any bits of the number will do
        }
        if (mask != 0 && sampleSpacingNanos > 0 && !takeSampleTurn()) {
            return null; // over the rate cap: a stack was taken less than sampleSpacingNanos ago
        }
        reportLeaks();
        // the allocation stack, taken here rather than in Record's constructor: one frame less for the JVM to walk
        Record record = new Record(buffer, queue, new TracePoint(null));
        live.add(record);
        return record;
    }

    /** @return {@code true} when the rate cap lets this sampled allocation be tracked (and books the turn) */
    private boolean takeSampleTurn() {
        long now = System.nanoTime();
        long next = nextSampleNanos.get();
        return now - next >= 0 && nextSampleNanos.compareAndSet(next, now + sampleSpacingNanos);
    }

    /** Reports every enqueued, still-open record once. */
    void reportLeaks() {
        for (Object ref; (ref = queue.poll()) != null; ) {
            Record record = (Record) ref;
            if (live.remove(record)) {
                reports.incrementAndGet();
                reporter.accept(record.report());
            }
        }
    }

    /** @return leaks reported so far */
    long reportCount() {
        return reports.get();
    }

    /** @return tracked buffers not yet released (for tests and diagnostics) */
    int liveCount() {
        return live.size();
    }

    /** Classes of this package whose frames lead a captured stack (the tests of this package are not among them). */
    private static final Set<String> ALLOCATOR_CLASSES = Set.of("LeakDetector", "AbstractBuffer", "MemoryBuffer",
            "UnpooledBuffer", "PooledBuffer", "SliceBuffer", "UnpooledAllocator", "PooledAllocator", "PoolArena",
            "PoolChunk", "LoopCache", "Allocators");

    static boolean isAllocatorFrame(String className) {
        if (className.equals("io.conduit.buffer.Buffer") || className.equals("io.conduit.buffer.ReferenceCounted")) {
            return true; // default methods such as touch()
        }
        String prefix = "io.conduit.internal.buffer.";
        if (!className.startsWith(prefix)) {
            return false;
        }
        int nested = className.indexOf('$');
        return ALLOCATOR_CLASSES.contains(className.substring(prefix.length(), nested < 0 ? className.length() : nested));
    }

    /** A stack captured at an allocation or a touch; the message is the hint. */
    private static final class TracePoint extends Throwable {
        private static final long serialVersionUID = 1L;

        TracePoint(String hint) {
            super(hint, null, false, true);
        }
    }

    /** The tracking state of one buffer. */
    final class Record extends PhantomReference<Object> {
        private final TracePoint allocation;
        /** The newest touches, oldest first; {@code null} until the first touch. Guarded by this record. */
        private ArrayDeque<TracePoint> touches;
        private int touchCount; // guarded by this record
        /** {@link #live}'s hash of this record: a random number saves the JVM making an identity hash. */
        private final int hash = ThreadLocalRandom.current().nextInt();

        Record(Object referent, ReferenceQueue<Object> queue, TracePoint allocation) {
            super(referent, queue);
            this.allocation = allocation;
        }

        @Override
        public int hashCode() {
            return hash; // equals stays identity
        }

        void record(Object hint) {
            TracePoint point = new TracePoint(hint == null ? null : String.valueOf(hint));
            synchronized (this) {
                if (touches == null) {
                    touches = new ArrayDeque<>(MAX_TOUCHES);
                } else if (touches.size() == MAX_TOUCHES) {
                    touches.removeFirst();
                }
                touches.addLast(point);
                touchCount++;
            }
        }

        /**
         * The buffer was released: forget it. The caller drops its reference to this record too, which leaves it
         * unreachable (see the class comment: no {@link #clear()} needed).
         */
        void close() {
            live.remove(this);
        }

        String report() {
            StringBuilder sb = new StringBuilder(1024);
            sb.append("LEAK: a buffer was garbage-collected without being released (refCnt > 0); pooled memory ")
                    .append("stays lost to the pool. Call release() or close() where it is last used. (")
                    .append(PROPERTY).append('=').append(mode.name().toLowerCase(Locale.ROOT)).append(')');
            synchronized (this) {
                int kept = touches == null ? 0 : touches.size();
                sb.append("\nLast touched (").append(kept).append(" newest of ").append(touchCount)
                        .append(" touches, newest first):");
                if (kept == 0) {
                    sb.append(" never");
                }
                int n = 1;
                for (Iterator<TracePoint> it = kept == 0 ? Collections.emptyIterator() : touches.descendingIterator();
                        it.hasNext(); n++) {
                    TracePoint point = it.next();
                    sb.append("\n#").append(n).append(" hint: ").append(point.getMessage());
                    appendFrames(sb, point);
                }
            }
            sb.append("\nAllocated at:");
            appendFrames(sb, allocation);
            return sb.toString();
        }

        private void appendFrames(StringBuilder sb, TracePoint point) {
            boolean skipping = true;
            for (StackTraceElement frame : point.getStackTrace()) {
                if (skipping && isAllocatorFrame(frame.getClassName())) {
                    continue; // the allocator's own frames say nothing about the caller
                }
                skipping = false;
                sb.append("\n\tat ").append(frame);
            }
        }
    }
}
