package io.conduit.internal.channel.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.buffer.BufferAllocator;
import io.conduit.channel.ChannelClosedException;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.WriteBufferWaterMark;
import io.conduit.concurrent.EventLoop;
import io.conduit.concurrent.Future;
import io.conduit.transport.spi.IdleIoHandler;
import io.conduit.transport.spi.IoEventLoopGroup;
import io.conduit.transport.spi.IoEvents;
import io.conduit.transport.spi.IoSocket;
import io.conduit.transport.spi.IoStreamSocket;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The shared channel core against a scripted {@link IoStreamSocket} (no kernel socket): how many write calls a
 * flush makes, what a continuation writes, water-mark events, and failing pending writes at close. Also shows
 * the whole SPI a transport implements.
 */
class ChannelCoreTest {

    /** A connected stream socket that accepts at most {@code bytesPerWrite} per write call and records them. */
    static class ScriptedSocket implements IoStreamSocket {
        volatile int bytesPerWrite = 10;
        final ByteArrayOutputStream written = new ByteArrayOutputStream(); // loop thread only
        final List<Integer> writeCalls = Collections.synchronizedList(new ArrayList<>());
        volatile int interest;
        volatile boolean open = true;
        volatile IoEvents events;

        @Override
        public void register(EventLoop loop, IoEvents events) {
            this.events = events;
        }

        @Override
        public void deregister(Runnable whenReleased) {
            if (whenReleased != null) {
                whenReleased.run();
            }
        }

        @Override
        public void interestOps(int ops) {
            interest = ops;
        }

        @Override
        public boolean isOpen() {
            return open;
        }

        @Override
        public void close() {
            open = false;
        }

        @Override
        public void bind(SocketAddress localAddress) {
        }

        @Override
        public SocketAddress localAddress() {
            return new InetSocketAddress(1);
        }

        @Override
        public SocketAddress remoteAddress() {
            return new InetSocketAddress(2);
        }

        @Override
        public <T> boolean setOption(ChannelOption<T> option, T value) {
            return false;
        }

        @Override
        public <T> T getOption(ChannelOption<T> option) {
            return null;
        }

        @Override
        public int read(ByteBuffer dst) {
            return 0;
        }

        @Override
        public long write(ByteBuffer[] srcs, int offset, int length) {
            int budget = bytesPerWrite;
            long n = 0;
            for (int i = offset; i < offset + length && budget > 0; i++) {
                while (srcs[i].hasRemaining() && budget > 0) {
                    written.write(srcs[i].get());
                    budget--;
                    n++;
                }
            }
            writeCalls.add((int) n);
            return n;
        }

        @Override
        public long transferFrom(FileChannel file, long position, long count) {
            return 0;
        }

        @Override
        public boolean connect(SocketAddress remoteAddress, SocketAddress localAddress) {
            return true;
        }

        @Override
        public boolean finishConnect() {
            return true;
        }

        @Override
        public boolean isConnected() {
            return true;
        }

        @Override
        public void shutdownInput() {
        }

        @Override
        public void shutdownOutput() {
        }
    }

    private IoEventLoopGroup group;
    private ScriptedSocket socket;
    private IoSocketChannel channel;
    private final List<String> events = Collections.synchronizedList(new ArrayList<>());

    @BeforeEach
    void setUp() throws Exception {
        group = new IoEventLoopGroup(1, null, IdleIoHandler::new);
        socket = new ScriptedSocket();
        channel = new IoSocketChannel("scripted", socket, null, group.next());
        channel.config().setOption(ChannelOption.ALLOCATOR, BufferAllocator.unpooled());
        channel.config().setOption(ChannelOption.AUTO_READ, false);
        channel.pipeline().addLast(new ChannelHandler() {
            @Override
            public void channelWritabilityChanged(ChannelHandlerContext ctx) {
                events.add("writable:" + ctx.channel().isWritable());
            }
        });
        channel.register().sync();
    }

    @AfterEach
    void tearDown() throws Exception {
        group.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
    }

    private void onLoop(Runnable r) throws Exception {
        group.next().submit(r).sync();
    }

    private static byte[] bytes(int n, int base) {
        byte[] a = new byte[n];
        for (int i = 0; i < n; i++) {
            a[i] = (byte) (base + i);
        }
        return a;
    }

    @Test
    void aFlushMakesAtMostWriteSpinCountCallsAndTheContinuationWritesOnlyWhatWasFlushed() throws Exception {
        channel.config().setOption(ChannelOption.WRITE_SPIN_COUNT, 2);
        List<Future<Void>> futures = new ArrayList<>();
        onLoop(() -> {
            futures.add(channel.writeAndFlush(channel.alloc().buffer(100).writeBytes(bytes(100, 0))));
            assertEquals(List.of(10, 10), socket.writeCalls, "WRITE_SPIN_COUNT=2: two write calls, then yield");
            futures.add(channel.write(channel.alloc().buffer(5).writeBytes(bytes(5, 100)))); // not flushed
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!futures.get(0).isDone() && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        Thread.sleep(50); // any further continuation would run now
        onLoop(() -> {
            assertTrue(futures.get(0).isSuccess());
            assertFalse(futures.get(1).isDone(), "the continuation must not write what was not flushed");
            assertEquals(100, socket.written.size());
            assertEquals(10, socket.writeCalls.size(), "100 bytes at 10 per call");
        });
        channel.flush();
        futures.get(1).sync();
        onLoop(() -> assertEquals(105, socket.written.size()));
    }

    @Test
    void aFullSocketWaitsForWriteReadinessAndWaterMarksFireInOrder() throws Exception {
        channel.config().setOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(20, 50));
        socket.bytesPerWrite = 0; // the send buffer is full
        Future<Void>[] f = new Future[1];
        onLoop(() -> {
            f[0] = channel.writeAndFlush(channel.alloc().buffer(60).writeBytes(bytes(60, 0)));
            assertEquals(IoSocket.OP_WRITE, socket.interest & IoSocket.OP_WRITE, "write interest while full");
            assertFalse(channel.isWritable());
        });
        socket.bytesPerWrite = 1000;
        onLoop(() -> socket.events.writeReady()); // what the poller reports once the socket drained
        f[0].sync();
        assertEquals(List.of("writable:false", "writable:true"), events);
        assertTrue(channel.isWritable());
        onLoop(() -> assertEquals(0, socket.interest & IoSocket.OP_WRITE, "write interest dropped when drained"));
    }

    @Test
    void pendingWritesFailWithChannelClosedExceptionAtClose() throws Exception {
        socket.bytesPerWrite = 0;
        Future<Void>[] f = new Future[2];
        onLoop(() -> {
            f[0] = channel.writeAndFlush(channel.alloc().buffer(10).writeBytes(bytes(10, 0)));
            f[1] = channel.write(channel.alloc().buffer(10).writeBytes(bytes(10, 0)));
        });
        channel.close().sync();
        for (Future<Void> w : f) {
            assertTrue(w.await(5, TimeUnit.SECONDS));
            assertInstanceOf(ChannelClosedException.class, w.cause());
            assertTrue(w.cause().getMessage().contains(channel.id()), w.cause().getMessage());
        }
    }

    @Test
    void aSocketWriteErrorClosesTheChannelAndNamesTheCauseInEveryPendingFailure() throws Exception {
        IOException broken = new IOException("Broken pipe");
        ScriptedSocket failing = new ScriptedSocket() {
            @Override
            public long write(ByteBuffer[] srcs, int offset, int length) {
                throwUnchecked(broken);
                return 0;
            }
        };
        IoSocketChannel ch = new IoSocketChannel("scripted", failing, null, group.next());
        ch.config().setOption(ChannelOption.ALLOCATOR, BufferAllocator.unpooled());
        ch.register().sync();
        Future<Void> w = ch.writeAndFlush(ch.alloc().buffer(3).writeBytes(bytes(3, 0)));
        assertTrue(w.await(5, TimeUnit.SECONDS));
        assertInstanceOf(ChannelClosedException.class, w.cause());
        assertTrue(w.cause().getMessage().contains("Broken pipe"), w.cause().getMessage());
        assertEquals(broken, w.cause().getCause());
        ch.closeFuture().sync();
    }

    @Test
    void dataWrittenAndFlushedFromAWritabilityEventInsideTheWriteLoopIsWrittenToo() throws Exception {
        channel.config().setOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(20, 50));
        channel.config().setOption(ChannelOption.WRITE_SPIN_COUNT, 3);
        List<Future<Void>> nested = Collections.synchronizedList(new ArrayList<>());
        channel.pipeline().addFirst("nested-writer", new ChannelHandler() {
            private int rounds; // loop-confined

            @Override
            public void channelWritabilityChanged(ChannelHandlerContext ctx) {
                // fired from inside the write loop when the pending bytes drop below the low water mark
                if (ctx.channel().isWritable() && rounds++ < 5) {
                    nested.add(ctx.channel().writeAndFlush(ctx.alloc().buffer(60).writeBytes(bytes(60, rounds))));
                }
                ctx.fireChannelWritabilityChanged();
            }
        });
        Future<Void>[] first = new Future[1];
        onLoop(() -> first[0] = channel.writeAndFlush(channel.alloc().buffer(60).writeBytes(bytes(60, 0))));
        first[0].sync();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (nested.size() < 5 && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertEquals(5, nested.size(), "five nested writes: " + events);
        for (Future<Void> f : nested) {
            assertTrue(f.await(5, TimeUnit.SECONDS), "a nested write was never written: " + f);
            assertTrue(f.isSuccess(), String.valueOf(f.cause()));
        }
        onLoop(() -> {
            assertEquals(6 * 60, socket.written.size());
            assertEquals(0, socket.interest & IoSocket.OP_WRITE);
        });
    }

    @Test
    void pendingWritesFailedAtCloseSayWhyTheChannelClosed() throws Exception {
        socket.bytesPerWrite = 0;
        Future<Void>[] f = new Future[1];
        onLoop(() -> f[0] = channel.writeAndFlush(channel.alloc().buffer(10).writeBytes(bytes(10, 0))));
        channel.close().sync();
        assertTrue(f[0].await(5, TimeUnit.SECONDS));
        assertTrue(f[0].cause().getMessage().contains("(close() was called)"), f[0].cause().getMessage());

        ScriptedSocket eof = new ScriptedSocket() {
            @Override
            public int read(ByteBuffer dst) {
                return -1;
            }
        };
        eof.bytesPerWrite = 0;
        IoSocketChannel ch = new IoSocketChannel("scripted", eof, null, group.next());
        ch.config().setOption(ChannelOption.ALLOCATOR, BufferAllocator.unpooled());
        ch.register().sync();
        Future<Void>[] g = new Future[1];
        onLoop(() -> {
            g[0] = ch.writeAndFlush(ch.alloc().buffer(10).writeBytes(bytes(10, 0)));
            eof.events.readReady(); // the poller reports end-of-stream
        });
        assertTrue(g[0].await(5, TimeUnit.SECONDS));
        assertTrue(g[0].cause().getMessage().contains("the peer closed the connection (end of stream"),
                g[0].cause().getMessage());
    }

    /** An allocator that refuses every buffer with {@code refusal}, as the shared ones do with a malformed property. */
    static BufferAllocator refusingAllocator(RuntimeException refusal) {
        return new BufferAllocator() {
            @Override
            public io.conduit.buffer.Buffer buffer() {
                throw refusal;
            }

            @Override
            public io.conduit.buffer.Buffer buffer(int initialCapacity) {
                throw refusal;
            }

            @Override
            public io.conduit.buffer.Buffer buffer(int initialCapacity, int maxCapacity) {
                throw refusal;
            }

            @Override
            public io.conduit.buffer.Buffer heapBuffer(int initialCapacity) {
                throw refusal;
            }

            @Override
            public boolean isPooled() {
                return false;
            }
        };
    }

    /**
     * A stream read whose allocator throws fires that exception once and closes the channel (Netty's closeOnRead):
     * left open it would fail the same way on every readiness event, and the peer would wait forever.
     */
    @Test
    void anAllocatorFailingOnAReadFiresTheExceptionOnceAndClosesTheChannel() throws Exception {
        for (boolean autoRead : new boolean[] {true, false}) {
            List<Integer> reads = Collections.synchronizedList(new ArrayList<>());
            ScriptedSocket input = new ScriptedSocket() {
                @Override
                public int read(ByteBuffer dst) {
                    reads.add(dst.remaining());
                    dst.put((byte) 1);
                    return 1; // always more input
                }
            };
            IoSocketChannel ch = new IoSocketChannel("scripted", input, null, group.next());
            IllegalArgumentException refusal = new IllegalArgumentException(
                    "system property conduit.leakDetection='bogus' is not valid");
            ch.config().setOption(ChannelOption.ALLOCATOR, refusingAllocator(refusal));
            ch.config().setOption(ChannelOption.AUTO_READ, autoRead); // off: the core still reads ahead
            List<Throwable> caught = Collections.synchronizedList(new ArrayList<>());
            ch.pipeline().addLast(new ChannelHandler() {
                @Override
                public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                    caught.add(cause);
                }
            });
            ch.register().sync();
            Future<Void> pending = ch.write(BufferAllocator.unpooled().buffer(1).writeByte(7)); // not flushed
            onLoop(() -> {
                input.events.readReady();
                input.events.readReady(); // a level-triggered poller reports the same input again
            });
            assertTrue(ch.closeFuture().await(5, TimeUnit.SECONDS), "closed, auto-read " + autoRead);
            assertEquals(List.of(refusal), caught, "one exception, the allocator's own, auto-read " + autoRead);
            assertEquals(List.of(), reads, "nothing was read without a buffer");
            assertFalse(input.open, "the socket was closed");
            assertTrue(pending.await(5, TimeUnit.SECONDS));
            assertTrue(pending.cause().getMessage().contains("allocator failed while reading"),
                    pending.cause().getMessage());
            Future<Void> write = ch.writeAndFlush(BufferAllocator.unpooled().buffer(1).writeByte(1));
            assertTrue(write.await(5, TimeUnit.SECONDS));
            assertTrue(write.cause().getMessage().contains("allocator failed while reading"),
                    write.cause().getMessage());
        }
    }

    @SuppressWarnings("unchecked")
    private static <E extends Throwable> void throwUnchecked(Throwable t) throws E {
        throw (E) t;
    }
}
