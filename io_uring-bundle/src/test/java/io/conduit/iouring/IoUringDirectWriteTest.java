package io.conduit.iouring;

import static io.conduit.iouring.IoUringTestSupport.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.bootstrap.Bootstrap;
import io.conduit.buffer.Buffer;
import io.conduit.buffer.BufferAllocator;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelOption;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.concurrent.Future;
import io.conduit.transport.ChannelType;
import io.conduit.transport.Transport;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Large writes of direct buffers go straight from the core's buffers to {@code writev(2)} when nothing is staged or in
 * flight ({@link IoUringStreamSocket#DIRECT_WRITE_BYTES}); small ones and heap ones are staged and sent by the ring.
 * Each test counts the direct writes on the loop ({@link IoUringIoHandler#directWrites}) and checks that the peer
 * gets every byte, in order: large writes alone, small and large and heap writes mixed (a small write staged while a
 * send is in flight must not be overtaken by a large one), a peer that stops reading (a short {@code writev(2)}, then
 * the {@code POLLOUT} poll), a half-close and a close with bytes still pending.
 */
@Timeout(120)
class IoUringDirectWriteTest {

    private final Transport transport = IoUringTestSupport.transport();
    private EventLoopGroup group;
    private ServerSocket peerServer;
    private Channel channel;
    private Socket peer;

    @BeforeEach
    void connect() throws Exception {
        group = transport.newEventLoopGroup(1);
        peerServer = new ServerSocket();
        // a fixed receive buffer (no autotuning up to tcp_rmem's maximum): a peer that pauses fills the connection
        // after a few hundred kilobytes, so the tests below see short writev(2) calls and the POLLOUT wait
        peerServer.setReceiveBufferSize(256 << 10);
        peerServer.bind(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1);
        channel = await(new Bootstrap().transport(transport).group(group).channelType(ChannelType.TCP)
                .option(ChannelOption.ALLOW_HALF_CLOSURE, true).handler(new ChannelHandler() { })
                .connect(peerServer.getLocalSocketAddress()));
        peer = peerServer.accept();
        peer.setSoTimeout(60_000);
    }

    @AfterEach
    void close() throws Exception {
        IoUringTestSupport.closeAll(channel);
        if (peer != null) {
            peer.close();
        }
        peerServer.close();
        IoUringTestSupport.close(group);
    }

    /** 16 MiB in 256 KiB direct buffers: every write is large, the bytes arrive exactly, by direct writes. */
    @Test
    void largeWritesGoStraightToWritev() throws Exception {
        long before = directWrites();
        byte[] expected = pattern(16 << 20, 1);
        Future<Void> last = null;
        for (int off = 0; off < expected.length; off += 256 << 10) {
            last = channel.writeAndFlush(direct(expected, off, 256 << 10));
        }
        byte[] got = peer.getInputStream().readNBytes(expected.length);
        await(last);
        assertArrayEquals(expected, got, "the bytes the peer read");
        long direct = directWrites() - before;
        assertTrue(direct >= 1, "large writes went to writev(2): " + direct);
        assertTrue(directWriteBytes() >= 1 << 20, "most bytes went by writev(2): " + directWriteBytes());
    }

    /**
     * Small and large, direct and heap writes, flushed one by one or several at once, while the peer reads: the bytes
     * arrive in the order written (a large write never overtakes staged bytes or a send in flight).
     */
    @Test
    void mixedSmallLargeAndHeapWritesKeepTheirOrder() throws Exception {
        long before = directWrites();
        int[] sizes = {100, 40_000, 3, 200_000, 7, 7, 64 << 10, 1, 1 << 20, 512, 33_000, 31_000, 5, 300_000};
        int total = 0;
        for (int round = 0; round < 8; round++) {
            for (int s : sizes) {
                total += s;
            }
        }
        byte[] expected = pattern(total, 2);
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        Thread reader = new Thread(() -> readInto(peer, got, expected.length));
        reader.start();
        int off = 0;
        Future<Void> last = null;
        int k = 0;
        for (int round = 0; round < 8; round++) {
            for (int s : sizes) {
                Buffer b = (k % 5 == 3) ? heap(expected, off, s) : direct(expected, off, s);
                off += s;
                k++;
                if (k % 3 == 0) {
                    last = channel.write(b); // flushed with the next ones: a gathering write of several
                } else {
                    last = channel.writeAndFlush(b);
                }
            }
        }
        channel.flush();
        reader.join(60_000);
        await(last);
        assertEquals(expected.length, got.size(), "bytes the peer read");
        assertArrayEquals(expected, got.toByteArray(), "the bytes, in the order written");
        assertTrue(directWrites() - before >= 1, "some large writes went to writev(2)");
    }

    /**
     * A peer that reads nothing for a while: the socket's buffer fills, a {@code writev(2)} takes part (or nothing),
     * the {@code POLLOUT} poll waits, and once the peer reads again every byte arrives, in order.
     */
    @Test
    void aPeerThatPausesGetsEveryByteAfterTheSocketFilled() throws Exception {
        long before = directWrites();
        long waitsBefore = onLoop(h -> h.directWriteWaits);
        byte[] expected = pattern(24 << 20, 3);
        Future<Void> last = null;
        for (int off = 0; off < expected.length; off += 1 << 20) {
            last = channel.writeAndFlush(direct(expected, off, 1 << 20));
        }
        Thread.sleep(300); // the peer reads nothing: the kernel's buffers fill
        assertTrue(onLoop(h -> h.directWriteWaits) > waitsBefore, "a writev(2) found the socket full");
        byte[] got = peer.getInputStream().readNBytes(expected.length);
        await(last);
        assertArrayEquals(expected, got, "the bytes the peer read");
        assertTrue(directWrites() - before >= 2, "the writes went on by writev(2) after the POLLOUT poll");
    }

    /** A half-close after large writes: the peer reads every byte, then end of stream. */
    @Test
    void shutdownOutputAfterLargeWritesEndsTheStreamAfterTheBytes() throws Exception {
        byte[] expected = pattern(6 << 20, 4);
        List<Future<Void>> writes = new ArrayList<>();
        for (int off = 0; off < expected.length; off += 3 << 20) {
            writes.add(channel.write(direct(expected, off, 3 << 20)));
        }
        channel.write(direct(expected, 0, 0));
        channel.flush();
        Future<Void> shut = ((io.conduit.channel.DuplexChannel) channel).shutdownOutput();
        InputStream in = peer.getInputStream();
        byte[] got = in.readNBytes(expected.length);
        assertArrayEquals(expected, got, "the bytes before end of stream");
        assertEquals(-1, in.read(), "end of stream after the bytes");
        await(shut);
        for (Future<Void> w : writes) {
            await(w);
        }
    }

    /**
     * A close while large writes are pending (the peer reads nothing): what the peer then reads is an exact prefix
     * of what was written, followed by end of stream; writes not done fail, writes done are all in that prefix.
     */
    @Test
    void aCloseWithPendingBytesSendsAnExactPrefix() throws Exception {
        byte[] expected = pattern(32 << 20, 5);
        List<Future<Void>> writes = new ArrayList<>();
        for (int off = 0; off < expected.length; off += 1 << 20) {
            writes.add(channel.writeAndFlush(direct(expected, off, 1 << 20)));
        }
        Thread.sleep(200);
        channel.close().await(10, TimeUnit.SECONDS);
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        readInto(peer, got, expected.length);
        byte[] prefix = got.toByteArray();
        assertTrue(prefix.length < expected.length, "the close came before the peer read: " + prefix.length);
        assertArrayEquals(Arrays.copyOf(expected, prefix.length), prefix, "an exact prefix");
        long done = 0;
        for (Future<Void> w : writes) {
            assertTrue(w.await(10, TimeUnit.SECONDS), "every write completes");
            if (w.isSuccess()) {
                done += 1 << 20;
            }
        }
        assertTrue(done <= prefix.length, done + " bytes reported written, " + prefix.length + " arrived");
    }

    private long directWrites() throws Exception {
        return onLoop(h -> h.directWrites);
    }

    private long directWriteBytes() throws Exception {
        return onLoop(h -> h.directWriteBytes);
    }

    private long onLoop(java.util.function.ToLongFunction<IoUringIoHandler> counter) throws Exception {
        return IoUringTestSupport.onLoop(group, counter);
    }

    private static Buffer direct(byte[] from, int off, int len) {
        Buffer b = BufferAllocator.unpooled().buffer(len);
        assertTrue(b.isDirect());
        return b.writeBytes(from, off, len);
    }

    private static Buffer heap(byte[] from, int off, int len) {
        return BufferAllocator.unpooled().heapBuffer(len).writeBytes(from, off, len);
    }

    /** Reads until end of stream or {@code max} bytes. */
    private static void readInto(Socket s, ByteArrayOutputStream out, int max) {
        byte[] chunk = new byte[64 << 10];
        try {
            InputStream in = s.getInputStream();
            int total = 0;
            int n;
            while (total < max && (n = in.read(chunk)) > 0) {
                synchronized (out) {
                    out.write(chunk, 0, n);
                }
                total += n;
            }
        } catch (IOException e) {
            // a reset ends the stream too; the caller checks the bytes
        }
    }

    private static byte[] pattern(int length, int seed) {
        byte[] b = new byte[length];
        long x = seed * 0x9E3779B97F4A7C15L;
        for (int i = 0; i < length; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            b[i] = (byte) x;
        }
        return b;
    }
}
