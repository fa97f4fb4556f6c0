package io.conduit.benchmarks.jmh;

import io.conduit.buffer.Buffer;
import io.conduit.buffer.BufferAllocator;
import io.conduit.buffer.ReferenceCounted;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.embedded.EmbeddedChannel;
import io.conduit.concurrent.Promise;
import io.conduit.handler.codec.LengthFieldBasedFrameDecoder;
import io.conduit.handler.codec.LengthFieldPrepender;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelPromise;
import io.netty.util.ReferenceCountUtil;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.util.concurrent.TimeUnit;

/**
 * The framed echo's per-frame path without system calls, Conduit's handler bundle against Netty's codec, on each
 * one's {@code EmbeddedChannel}: a read of {@value #FRAMES} 64-byte frames (a 4-byte big-endian length, then 60
 * bytes) as the streaming step of the load benchmark delivers them (docs/benchmarks.md, "Framed echo").
 * <ul>
 *   <li>{@code decode}: the length-field decoder alone; a handler after it releases each frame;</li>
 *   <li>{@code echo}: decoder, prepender and an echo handler that writes each frame back and flushes once per
 *       read, as the load benchmark's framed server does. A handler at the head end of the pipeline releases what
 *       is written and completes its promise, so neither embedded channel's outbound queue is measured.</li>
 * </ul>
 * Times and {@code -prof gc}'s {@code gc.alloc.rate.norm} are per frame ({@link OperationsPerInvocation}). The
 * input is copied into a pooled buffer of the channel's allocator on each invocation (64 KiB, a few ns per
 * frame, the same for both). Run: {@code benchmarks/jmh.sh FramedCodec -prof gc}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class FramedCodecBenchmark {

    static final int FRAMES = 1024;
    static final int FRAME_BYTES = 64;
    static final int MAX_FRAME_BYTES = 1 << 20;

    @Param({"conduit", "netty"})
    public String codec;

    private final byte[] input = new byte[FRAMES * FRAME_BYTES];
    private EmbeddedChannel conduitDecode;
    private EmbeddedChannel conduitEcho;
    private BufferAllocator conduitAlloc;
    private io.netty.channel.embedded.EmbeddedChannel nettyDecode;
    private io.netty.channel.embedded.EmbeddedChannel nettyEcho;

    @Setup(Level.Trial)
    public void setUp() {
        for (int f = 0; f < FRAMES; f++) {
            int at = f * FRAME_BYTES;
            input[at + 3] = (byte) (FRAME_BYTES - 4);
            for (int i = 4; i < FRAME_BYTES; i++) {
                input[at + i] = (byte) (f + i);
            }
        }
        if (codec.equals("conduit")) {
            conduitDecode = new EmbeddedChannel(conduitDecoder(), new ConduitRelease());
            conduitEcho = new EmbeddedChannel(new ConduitSink(), new LengthFieldPrepender(4), conduitDecoder(),
                    new ConduitEcho());
            conduitAlloc = conduitEcho.config().getAllocator();
        } else {
            nettyDecode = new io.netty.channel.embedded.EmbeddedChannel(nettyDecoder(), new NettyRelease());
            nettyEcho = new io.netty.channel.embedded.EmbeddedChannel(new NettySink(),
                    new io.netty.handler.codec.LengthFieldPrepender(4), nettyDecoder(), new NettyEcho());
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (conduitDecode != null) {
            conduitDecode.finishAndReleaseAll();
            conduitEcho.finishAndReleaseAll();
        }
        if (nettyDecode != null) {
            nettyDecode.finishAndReleaseAll();
            nettyEcho.finishAndReleaseAll();
        }
    }

    @Benchmark
    @OperationsPerInvocation(FRAMES)
    public void decode() {
        if (conduitDecode != null) {
            conduitDecode.writeInbound(conduitInput());
        } else {
            nettyDecode.writeInbound(nettyInput(nettyDecode));
        }
    }

    @Benchmark
    @OperationsPerInvocation(FRAMES)
    public void echo() {
        if (conduitEcho != null) {
            conduitEcho.writeInbound(conduitInput());
        } else {
            nettyEcho.writeInbound(nettyInput(nettyEcho));
        }
    }

    private Buffer conduitInput() {
        return conduitAlloc.buffer(input.length).writeBytes(input);
    }

    private ByteBuf nettyInput(io.netty.channel.embedded.EmbeddedChannel ch) {
        return ch.alloc().buffer(input.length).writeBytes(input);
    }

    private static LengthFieldBasedFrameDecoder conduitDecoder() {
        return new LengthFieldBasedFrameDecoder(MAX_FRAME_BYTES, 0, 4, 0, 4);
    }

    private static io.netty.handler.codec.LengthFieldBasedFrameDecoder nettyDecoder() {
        return new io.netty.handler.codec.LengthFieldBasedFrameDecoder(MAX_FRAME_BYTES, 0, 4, 0, 4);
    }

    /** Releases each frame: the end of the {@code decode} pipeline. */
    static final class ConduitRelease implements ChannelHandler {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ReferenceCounted.release(msg);
        }
    }

    /** Writes each frame back, flushes once per read. */
    static final class ConduitEcho implements ChannelHandler {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.write(msg);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }
    }

    /** Stands for the socket: releases what is written and completes its promise. */
    static final class ConduitSink implements ChannelHandler {
        @Override
        public void write(ChannelHandlerContext ctx, Object msg, Promise<Void> promise) {
            ReferenceCounted.release(msg);
            promise.trySuccess(null);
        }

        @Override
        public void flush(ChannelHandlerContext ctx) {
        }
    }

    static final class NettyRelease extends io.netty.channel.ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(io.netty.channel.ChannelHandlerContext ctx, Object msg) {
            ReferenceCountUtil.release(msg);
        }
    }

    static final class NettyEcho extends io.netty.channel.ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(io.netty.channel.ChannelHandlerContext ctx, Object msg) {
            ctx.write(msg);
        }

        @Override
        public void channelReadComplete(io.netty.channel.ChannelHandlerContext ctx) {
            ctx.flush();
        }
    }

    static final class NettySink extends ChannelDuplexHandler {
        @Override
        public void write(io.netty.channel.ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            ReferenceCountUtil.release(msg);
            promise.trySuccess();
        }

        @Override
        public void flush(io.netty.channel.ChannelHandlerContext ctx) {
        }
    }
}
