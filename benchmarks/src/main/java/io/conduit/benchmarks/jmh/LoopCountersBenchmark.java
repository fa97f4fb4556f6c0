package io.conduit.benchmarks.jmh;

import io.conduit.internal.metrics.LoopCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.util.concurrent.TimeUnit;

/**
 * What the event loop's counters ({@code conduit.metrics}, docs/metrics.md) add to the work of one echo round trip,
 * without the system calls: the loop's wait is bracketed ({@code waitStarting}, {@code waitEnded}: two
 * {@link System#nanoTime()} calls), one read and one write are counted. {@code readWrite} counts only the read and
 * the write, as a loop that serves many connections per wait does. With {@code counting=false} every counter method
 * returns at once, the baseline. The property is read once per JVM, so each parameter set runs in a fork of its own
 * (JMH's default). Average time per operation in nanoseconds; the load benchmark's server CPU per round trip (µs)
 * is what to divide it by.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class LoopCountersBenchmark {

    @Param({"true", "false"})
    public String counting;

    private LoopCounters counters;

    @Setup(Level.Trial)
    public void setUp() {
        System.setProperty("conduit.metrics", counting);
        counters = LoopCounters.UNLISTED; // the first use in this fork: its class reads the property
    }

    @Benchmark
    public void waitReadWrite() {
        counters.waitStarting();
        counters.waitEnded();
        counters.bytesRead(64);
        counters.bytesWritten(64);
    }

    @Benchmark
    public void readWrite() {
        counters.bytesRead(64);
        counters.bytesWritten(64);
    }
}
