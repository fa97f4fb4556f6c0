package io.conduit.internal.channel;

import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;

import io.conduit.channel.Channel;
import io.conduit.channel.ChannelConfig;
import io.conduit.channel.ChannelPipeline;
import io.conduit.concurrent.EventLoop;
import io.conduit.concurrent.Future;
import io.conduit.concurrent.Promise;
import io.conduit.internal.concurrent.DefaultPromise;

/** A channel for pipeline tests: a given loop, a recording {@link ChannelIoOperations}, no real I/O. */
final class TestChannel implements Channel {
    final EventLoop loop;
    final RecordingIo io = new RecordingIo();
    final DefaultChannelConfig config = new DefaultChannelConfig(this);
    final DefaultChannelPipeline pipeline;
    final DefaultPromise<Void> closeFuture;
    volatile boolean registered = true;
    volatile boolean active;

    TestChannel(EventLoop loop) {
        this(loop, DefaultChannelPipeline::new);
    }

    TestChannel(EventLoop loop, BiFunction<Channel, ChannelIoOperations, DefaultChannelPipeline> pipelineFactory) {
        this.loop = loop;
        this.closeFuture = new DefaultPromise<>(loop);
        this.pipeline = pipelineFactory.apply(this, io);
    }

    /** @return the thread {@code loop} runs its tasks on (an {@code EventExecutors} loop has one for life) */
    static Thread threadOf(EventLoop loop) throws Exception {
        return loop.submit(Thread::currentThread).get(10, java.util.concurrent.TimeUnit.SECONDS);
    }

    /** What reached the head. */
    static final class RecordingIo implements ChannelIoOperations {
        final List<Object> written = new CopyOnWriteArrayList<>();
        final AtomicInteger flushes = new AtomicInteger();
        final AtomicInteger reads = new AtomicInteger();
        final List<String> ops = new CopyOnWriteArrayList<>();
        final List<Thread> threads = new CopyOnWriteArrayList<>();

        @Override
        public void bind(SocketAddress localAddress, Promise<Void> promise) {
            ops.add("bind");
            promise.trySuccess(null);
        }

        @Override
        public void connect(SocketAddress remoteAddress, SocketAddress localAddress, Promise<Void> promise) {
            ops.add("connect");
            promise.trySuccess(null);
        }

        @Override
        public void disconnect(Promise<Void> promise) {
            ops.add("disconnect");
            promise.trySuccess(null);
        }

        @Override
        public void close(Promise<Void> promise) {
            ops.add("close");
            promise.trySuccess(null);
        }

        @Override
        public void read() {
            reads.incrementAndGet();
        }

        @Override
        public void write(Object msg, Promise<Void> promise) {
            threads.add(Thread.currentThread());
            written.add(msg);
            promise.trySuccess(null);
        }

        @Override
        public void flush() {
            flushes.incrementAndGet();
        }
    }

    @Override
    public String id() {
        return "test-0x1";
    }

    @Override
    public String transportName() {
        return "test";
    }

    @Override
    public EventLoop eventLoop() {
        return loop;
    }

    @Override
    public Channel parent() {
        return null;
    }

    @Override
    public ChannelConfig config() {
        return config;
    }

    @Override
    public ChannelPipeline pipeline() {
        return pipeline;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    /** What {@link #isOpen()} answers; tests set it. */
    volatile boolean open = true;

    @Override
    public boolean isRegistered() {
        return registered;
    }

    @Override
    public boolean isActive() {
        return active;
    }

    @Override
    public SocketAddress localAddress() {
        return null;
    }

    @Override
    public SocketAddress remoteAddress() {
        return null;
    }

    @Override
    public Future<Void> closeFuture() {
        return closeFuture;
    }

    @Override
    public boolean isWritable() {
        return true;
    }

    @Override
    public long bytesBeforeUnwritable() {
        return Long.MAX_VALUE;
    }

    @Override
    public long bytesBeforeWritable() {
        return 0;
    }

    @Override
    public Promise<Void> newPromise() {
        return pipeline.newPromise();
    }
}
