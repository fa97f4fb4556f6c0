package io.conduit.iouring;

import static io.conduit.iouring.IoUringTestSupport.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.bootstrap.Bootstrap;
import io.conduit.buffer.Buffer;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.InputShutdownEvent;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.transport.ChannelType;
import io.conduit.transport.Transport;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.ToLongFunction;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * While a connection streams, a read that finds no received bytes calls {@code read(2)} straight into the core's
 * buffer ({@link IoUringStreamSocket#read}); each test counts those calls on the loop
 * ({@link IoUringIoHandler#inlineReads}) and checks every byte against a pattern without period, so a reordered
 * chunk fails: a long stream of bursts (each burst starts on the multishot receive of small buffers, whose
 * completions may still wait in the completion queue when the core reads; an inline read then would overtake them),
 * auto-read turned off and on mid-stream, end of stream after inline reads (half-closure on and off), a reset, and a
 * close mid-stream that must leave no descriptor and no ring buffer behind.
 */
@Timeout(180)
class IoUringInlineReadTest {

    private final Transport transport = IoUringTestSupport.transport();
    private final EventLoopGroup group = transport.newEventLoopGroup(1);
    private ServerSocket peerServer;
    private Channel channel;
    private Socket peer;

    @AfterEach
    void close() throws Exception {
        IoUringTestSupport.closeAll(channel);
        if (peer != null) {
            peer.close();
        }
        if (peerServer != null) {
            peerServer.close();
        }
        IoUringTestSupport.close(group);
    }

    /**
     * 64 MiB in bursts of 1 MiB, each after a 100-byte write the reader drained alone (so the burst starts on the
     * small multishot ring): every byte arrives in order, most of them by inline reads, and no ring buffer is held
     * after.
     */
    @Test
    void aStreamOf64MiBArrivesExactlyThroughInlineReads() throws Exception {
        Checker checker = new Checker();
        connect(checker, false, true);
        long before = counter(h -> h.inlineReads);
        long bytesBefore = counter(h -> h.inlineReadBytes);
        long total = 0;
        try (OutputStream out = peer.getOutputStream()) {
            for (int burst = 0; burst < 64; burst++) {
                total = writePattern(out, total, 100);
                long t = total;
                IoUringTestSupport.eventually("the reader took the small write", () -> checker.received() >= t);
                for (int k = 0; k < 16; k++) {
                    total = writePattern(out, total, 64 << 10);
                }
            }
            long expected = total;
            IoUringTestSupport.eventually("every byte arrived", () -> checker.received() >= expected);
        }
        assertNull(checker.mismatch.get(), "the bytes, in order");
        assertEquals(total, checker.received(), "bytes received");
        long inline = counter(h -> h.inlineReads) - before;
        long inlineBytes = counter(h -> h.inlineReadBytes) - bytesBefore;
        assertTrue(inline > 0, "read(2) went straight into the core's buffers: " + inline);
        assertTrue(inlineBytes >= total / 8, "a good part of the stream came inline: " + inlineBytes + " of " + total);
        IoUringTestSupport.eventually("no ring buffer is held", () -> counter(h -> h.ringBuffersHeld) == 0);
    }

    /**
     * Auto-read off and on three times during a 48 MiB stream: nothing reaches the handler and nothing is read
     * inline while it is off (once the core's read-ahead is full), and every byte arrives in order once it is on.
     */
    @Test
    void autoReadOffAndOnMidStreamLosesAndReordersNothing() throws Exception {
        Checker checker = new Checker();
        connect(checker, false, true);
        long total = 48L << 20;
        AtomicReference<Throwable> writeFailure = new AtomicReference<>();
        Thread writer = new Thread(() -> {
            try (OutputStream out = peer.getOutputStream()) {
                long off = 0;
                while (off < total) {
                    off = writePattern(out, off, 256 << 10);
                }
            } catch (Throwable t) {
                writeFailure.set(t);
            }
        });
        writer.start();
        for (int round = 1; round <= 3; round++) {
            long at = round * (10L << 20);
            IoUringTestSupport.eventually("the stream reached " + at, () -> checker.received() >= at);
            await(channel.eventLoop().submit(() -> {
                channel.config().setAutoRead(false);
                checker.off = true;
                return null;
            }));
            long inlineBefore = settledInlineReads();
            long receivedOff = checker.received();
            Thread.sleep(300);
            assertEquals(inlineBefore, counter(h -> h.inlineReads), "no read(2) while auto-read is off");
            assertEquals(receivedOff, checker.received(), "no byte reached the handler while auto-read is off");
            await(channel.eventLoop().submit(() -> {
                checker.off = false;
                channel.config().setAutoRead(true);
                return null;
            }));
        }
        IoUringTestSupport.eventually("every byte arrived", () -> checker.received() >= total);
        writer.join(30_000);
        assertNull(writeFailure.get(), "the peer wrote everything");
        assertEquals(0, checker.readsWhileOff.get(), "reads delivered while auto-read was off");
        assertNull(checker.mismatch.get(), "the bytes, in order");
        assertEquals(total, checker.received(), "bytes received");
        assertTrue(counter(h -> h.inlineReads) > 0, "read(2) went straight into the core's buffers");
    }

    /** Half-closure on: the peer ends its output after 8 MiB; every byte, then exactly one input shutdown event. */
    @Test
    void endOfStreamAfterInlineReadsShutsTheInputDownOnce() throws Exception {
        Checker checker = new Checker();
        connect(checker, true, true);
        long before = counter(h -> h.inlineReads);
        long total;
        try (OutputStream out = peer.getOutputStream()) {
            total = 0;
            while (total < 8 << 20) {
                total = writePattern(out, total, 128 << 10);
            }
            peer.shutdownOutput();
            IoUringTestSupport.eventually("the input shut down", () -> checker.inputShutdowns.get() > 0);
            Thread.sleep(100);
            assertEquals(1, checker.inputShutdowns.get(), "one input shutdown event");
            assertEquals(total, checker.received(), "every byte came before end of stream");
            assertEquals(total, checker.receivedAtShutdown, "no byte after end of stream");
            assertNull(checker.mismatch.get(), "the bytes, in order");
            assertTrue(counter(h -> h.inlineReads) > before, "read(2) went straight into the core's buffers");
            assertTrue(channel.isOpen(), "the output stays usable");
            await(channel.writeAndFlush(channel.config().getAllocator().buffer(2).writeBytes(new byte[] {'o', 'k'})));
            assertEquals('o', peer.getInputStream().read());
            assertEquals('k', peer.getInputStream().read());
        }
    }

    /** Half-closure off: end of stream after inline reads closes the channel, after every byte. */
    @Test
    void endOfStreamAfterInlineReadsClosesWithoutHalfClosure() throws Exception {
        Checker checker = new Checker();
        connect(checker, false, true);
        long total = 0;
        try (OutputStream out = peer.getOutputStream()) {
            while (total < 8 << 20) {
                total = writePattern(out, total, 128 << 10);
            }
        }
        peer.close();
        await(channel.closeFuture());
        assertEquals(total, checker.received(), "every byte came before the close");
        assertNull(checker.mismatch.get(), "the bytes, in order");
        IoUringTestSupport.eventually("no ring buffer is held", () -> counter(h -> h.ringBuffersHeld) == 0);
    }

    /** A reset while streaming: the channel learns it as an exception naming the receive, then closes. */
    @Test
    void aResetWhileStreamingFailsTheReadAsAReceiveWould() throws Exception {
        Checker checker = new Checker();
        connect(checker, false, true);
        long total = 0;
        OutputStream out = peer.getOutputStream();
        while (total < 4 << 20) {
            total = writePattern(out, total, 128 << 10);
        }
        long t = total;
        IoUringTestSupport.eventually("the stream arrived", () -> checker.received() >= t);
        peer.setSoLinger(true, 0);
        peer.close(); // RST
        peer = null;
        await(channel.closeFuture());
        Throwable failure = checker.failure.get();
        assertTrue(failure instanceof IOException, "an IOException: " + failure);
        assertTrue(failure.getMessage().contains("recv"), "named as a receive's error: " + failure.getMessage());
        assertNull(checker.mismatch.get(), "the bytes, in order");
    }

    /**
     * Closes mid-stream, ten times, while inline reads run: no descriptor and no ring buffer is left behind, and the
     * loop goes on.
     */
    @Test
    void aCloseMidStreamLeaksNoDescriptorAndNoRingBuffer() throws Exception {
        long inlineBefore = counter(h -> h.inlineReads);
        long fdsBefore = IoUringTestSupport.openDescriptors();
        for (int round = 0; round < 10; round++) {
            Checker checker = new Checker();
            connect(checker, false, true);
            Socket p = peer;
            Thread writer = new Thread(() -> {
                try (OutputStream out = p.getOutputStream()) {
                    long off = 0;
                    while (true) {
                        off = writePattern(out, off, 256 << 10);
                    }
                } catch (IOException expected) {
                    // the channel closed
                }
            });
            writer.start();
            IoUringTestSupport.eventually("the stream runs", () -> checker.received() >= 4 << 20);
            await(channel.close());
            writer.join(30_000);
            assertFalse(writer.isAlive(), "the peer's write failed once the channel closed");
            assertNull(checker.mismatch.get(), "the bytes, in order");
            peer.close();
            peerServer.close();
            peer = null;
            peerServer = null;
            channel = null;
        }
        assertTrue(counter(h -> h.inlineReads) > inlineBefore, "read(2) went straight into the core's buffers");
        IoUringTestSupport.eventually("no ring buffer is held", () -> counter(h -> h.ringBuffersHeld) == 0);
        long fds = IoUringTestSupport.settledDescriptors(fdsBefore);
        assertTrue(fds <= fdsBefore, "descriptors before " + fdsBefore + ", after " + fds);
    }

    // ------------------------------------------------------------------------------------------ helpers

    private void connect(ChannelHandler handler, boolean halfClosure, boolean autoRead) throws IOException {
        peerServer = new ServerSocket();
        peerServer.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1);
        channel = await(new Bootstrap().transport(transport).group(group).channelType(ChannelType.TCP)
                .option(ChannelOption.ALLOW_HALF_CLOSURE, halfClosure).option(ChannelOption.AUTO_READ, autoRead)
                .handler(handler).connect(peerServer.getLocalSocketAddress()));
        peer = peerServer.accept();
        peer.setSoTimeout(60_000);
    }

    private long counter(ToLongFunction<IoUringIoHandler> c) {
        return IoUringTestSupport.onLoop(group, c);
    }

    /** @return the inline read count once it stopped moving (the core's read-ahead after auto-read went off) */
    private long settledInlineReads() throws InterruptedException {
        long last = counter(h -> h.inlineReads);
        for (int i = 0; i < 50; i++) {
            Thread.sleep(100);
            long now = counter(h -> h.inlineReads);
            if (now == last) {
                return now;
            }
            last = now;
        }
        return last;
    }

    /** @return the pattern's byte at {@code index}: a hash of it, no period a chunk size could hide a swap behind */
    static byte at(long index) {
        long x = (index + 1) * 0x9E3779B97F4A7C15L;
        return (byte) (x ^ (x >>> 29) ^ (x >>> 47));
    }

    /** Writes {@code length} pattern bytes from {@code offset}; @return the offset after them */
    private static long writePattern(OutputStream out, long offset, int length) throws IOException {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = at(offset + i);
        }
        out.write(b);
        out.flush();
        return offset + length;
    }

    /** Checks every byte read against the pattern; records the first mismatch, events and the failure. */
    @ChannelHandler.Sharable
    static final class Checker implements ChannelHandler {
        private final AtomicLong received = new AtomicLong();
        final AtomicReference<String> mismatch = new AtomicReference<>();
        final AtomicInteger inputShutdowns = new AtomicInteger();
        final AtomicInteger readsWhileOff = new AtomicInteger();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        volatile boolean off;
        volatile long receivedAtShutdown = -1;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (off) {
                readsWhileOff.incrementAndGet();
            }
            try (Buffer b = (Buffer) msg) {
                long base = received.get();
                int n = b.readableBytes();
                for (int i = 0; i < n; i++) {
                    byte got = b.getByte(b.readerIndex() + i);
                    if (got != at(base + i) && mismatch.get() == null) {
                        mismatch.set("byte " + (base + i) + ": " + got + ", expected " + at(base + i));
                    }
                }
                received.addAndGet(n);
            }
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
            if (event == InputShutdownEvent.INSTANCE) {
                receivedAtShutdown = received.get();
                inputShutdowns.incrementAndGet();
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            failure.compareAndSet(null, cause);
        }

        long received() {
            return received.get();
        }
    }
}
