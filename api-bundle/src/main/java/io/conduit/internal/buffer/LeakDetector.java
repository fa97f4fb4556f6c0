package io.conduit.internal.buffer;

import java.lang.ref.PhantomReference;
import java.lang.ref.ReferenceQueue;
import java.util.ArrayDeque;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;

/**
 * Finds buffers that became unreachable without being released ({@code conduit.leakDetection}).
 *
 * <p>Design: a tracked buffer gets a {@link Record}, a {@link PhantomReference} to it registered with a
 * {@link ReferenceQueue}. Releasing the buffer closes the record (it leaves {@link #live} and is cleared, so it
 * is never enqueued). A record that the garbage collector enqueues while still open therefore belongs to a
 * leaked buffer. The queue is polled on every allocation of the owning allocator (no extra thread); each leak is
 * reported once, as one {@code WARNING} on the {@code System.Logger} {@value #LOGGER_NAME} (or to the listener
 * given to the constructor, which tests use).
 *
 * <p>Cost: {@link Mode#DISABLED} returns {@code null} without touching the queue, and an untracked buffer's
 * {@code touch} is a null check. {@link Mode#SIMPLE} tracks about 1 in {@value #SAMPLING_INTERVAL} allocations
 * (sampled with {@link ThreadLocalRandom}, whose state lives in the {@code Thread} object itself, not in a
 * {@code ThreadLocal}); {@link Mode#PARANOID} tracks all. A tracked buffer keeps its allocation stack and the
 * stacks of its last {@value #MAX_TOUCHES} {@code touch(hint)} calls.
 *
 * <p>A leaked pooled buffer's memory is not returned to the pool (nothing proves that no {@code ByteBuffer} view
 * of it is still in use); the report says so.
 */
final class LeakDetector {

    static final String PROPERTY = "conduit.leakDetection";
    static final String LOGGER_NAME = "io.conduit.buffer.leak";
    static final int SAMPLING_INTERVAL = 128;
    static final int MAX_TOUCHES = 4;

    /** How many buffers are tracked. */
    enum Mode {
        DISABLED, SIMPLE, PARANOID;

        /**
         * Parses a {@value LeakDetector#PROPERTY} value (case-insensitive); {@code null} or blank means
         * {@link #SIMPLE}.
         *
         * @throws IllegalArgumentException for any other value, listing the allowed ones
         */
        static Mode parse(String value) {
            if (value == null || value.isBlank()) {
                return SIMPLE;
            }
            switch (value.trim().toLowerCase(Locale.ROOT)) {
                case "disabled": return DISABLED;
                case "simple": return SIMPLE;
                case "paranoid": return PARANOID;
                default:
                    throw new IllegalArgumentException("-D" + PROPERTY + "=" + value
                            + " is not valid; use one of disabled, simple, paranoid");
            }
        }
    }

    private final Mode mode;
    private final Consumer<String> reporter;
    private final ReferenceQueue<Object> queue = new ReferenceQueue<>();
    /** Open records; keeps each PhantomReference reachable until closed. Thread-safe set. */
    private final Set<Record> live = ConcurrentHashMap.newKeySet();

    /** @param reporter receives each leak report; {@code null} logs it as one WARNING on {@value #LOGGER_NAME} */
    LeakDetector(Mode mode, Consumer<String> reporter) {
        this.mode = mode;
        this.reporter = reporter != null ? reporter
                : report -> System.getLogger(LOGGER_NAME).log(System.Logger.Level.WARNING, report);
    }

    Mode mode() {
        return mode;
    }

    /**
     * Reports leaks found since the last call, then decides whether to track {@code buffer}.
     *
     * @return its record, or {@code null} when it is not tracked
     */
    Record track(Object buffer) {
        if (mode == Mode.DISABLED) {
            return null;
        }
        reportLeaks();
        if (mode == Mode.SIMPLE && ThreadLocalRandom.current().nextInt(SAMPLING_INTERVAL) != 0) {
            return null;
        }
        Record record = new Record(buffer, queue);
        live.add(record);
        return record;
    }

    /** Reports every enqueued, still-open record once. */
    void reportLeaks() {
        for (Object ref; (ref = queue.poll()) != null; ) {
            Record record = (Record) ref;
            if (live.remove(record)) {
                reporter.accept(record.report());
            }
        }
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
        private final TracePoint allocation = new TracePoint(null);
        private final ArrayDeque<TracePoint> touches = new ArrayDeque<>(MAX_TOUCHES); // guarded by itself
        private int touchCount; // guarded by touches

        Record(Object referent, ReferenceQueue<Object> queue) {
            super(referent, queue);
        }

        void record(Object hint) {
            TracePoint point = new TracePoint(hint == null ? null : String.valueOf(hint));
            synchronized (touches) {
                if (touches.size() == MAX_TOUCHES) {
                    touches.removeFirst();
                }
                touches.addLast(point);
                touchCount++;
            }
        }

        /** The buffer was released: forget it. */
        void close() {
            live.remove(this);
            clear();
        }

        String report() {
            StringBuilder sb = new StringBuilder(1024);
            sb.append("LEAK: a buffer was garbage-collected without being released (refCnt > 0); pooled memory ")
                    .append("stays lost to the pool. Call release() or close() where it is last used. (")
                    .append(PROPERTY).append('=').append(mode.name().toLowerCase(Locale.ROOT)).append(')');
            synchronized (touches) {
                sb.append("\nLast touched (").append(touches.size()).append(" newest of ").append(touchCount)
                        .append(" touches, newest first):");
                if (touches.isEmpty()) {
                    sb.append(" never");
                }
                int n = 1;
                for (var it = touches.descendingIterator(); it.hasNext(); n++) {
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
