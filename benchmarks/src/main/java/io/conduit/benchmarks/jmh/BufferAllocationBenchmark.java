package io.conduit.benchmarks.jmh;

import io.conduit.buffer.Buffer;
import io.conduit.buffer.BufferAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

import java.util.concurrent.TimeUnit;

/**
 * Allocate, write one long, release: Conduit's pooled allocator against Netty's pooled allocator and Netty's
 * default allocator (adaptive in 4.2), for direct buffers of {@code size} bytes, on the benchmark thread (which is
 * not an event loop, so neither side gets its per-loop cache unless it has a per-thread one). Average time per
 * operation in nanoseconds.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class BufferAllocationBenchmark {

    @Param({"64", "1024", "16384"})
    public int size;

    private final BufferAllocator conduitPooled = BufferAllocator.pooled();
    private final ByteBufAllocator nettyPooled = PooledByteBufAllocator.DEFAULT;
    private final ByteBufAllocator nettyDefault = ByteBufAllocator.DEFAULT;

    @Benchmark
    public int conduitPooled() {
        Buffer b = conduitPooled.buffer(size);
        b.writeLong(size);
        int w = b.writerIndex();
        b.close();
        return w;
    }

    @Benchmark
    public int nettyPooled() {
        ByteBuf b = nettyPooled.directBuffer(size);
        b.writeLong(size);
        int w = b.writerIndex();
        b.release();
        return w;
    }

    @Benchmark
    public int nettyDefault() {
        ByteBuf b = nettyDefault.directBuffer(size);
        b.writeLong(size);
        int w = b.writerIndex();
        b.release();
        return w;
    }
}
