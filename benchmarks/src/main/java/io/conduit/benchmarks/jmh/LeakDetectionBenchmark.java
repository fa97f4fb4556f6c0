package io.conduit.benchmarks.jmh;

import io.conduit.buffer.Buffer;
import io.conduit.buffer.BufferAllocator;
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
 * What leak detection ({@code conduit.leakDetection}) adds to a pooled allocation: allocate a direct buffer of
 * {@code size} bytes, write one long, optionally {@code touch} it with a hint, release. {@code disabled} is the
 * baseline, {@code simple} the sampled default (the cost every buffer pays for the sampling decision plus its
 * share of the sampled ones), {@code paranoid} the cost of tracking one buffer (its record and stacks). The mode
 * is read once per JVM, so every parameter set runs in a fork of its own (JMH's default). Average time per
 * operation in nanoseconds.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class LeakDetectionBenchmark {

    @Param({"disabled", "simple", "paranoid"})
    public String leakDetection;

    @Param({"1024"})
    public int size;

    private BufferAllocator allocator;

    @Setup(Level.Trial)
    public void setUp() {
        System.setProperty("conduit.leakDetection", leakDetection);
        allocator = BufferAllocator.pooled(); // the first use in this fork: it reads the property
    }

    @Benchmark
    public int allocateRelease() {
        Buffer b = allocator.buffer(size);
        b.writeLong(size);
        int w = b.writerIndex();
        b.close();
        return w;
    }

    /** As {@link #allocateRelease()} with two {@code touch(hint)} calls, as a handler chain might make. */
    @Benchmark
    public int allocateTouchRelease() {
        Buffer b = allocator.buffer(size);
        b.writeLong(size);
        b.touch("decoded");
        b.touch(this);
        int w = b.writerIndex();
        b.close();
        return w;
    }
}
