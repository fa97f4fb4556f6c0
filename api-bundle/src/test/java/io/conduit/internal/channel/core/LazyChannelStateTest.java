package io.conduit.internal.channel.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.buffer.BufferAllocator;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.WriteBufferWaterMark;
import io.conduit.concurrent.Future;
import io.conduit.transport.spi.IdleIoHandler;
import io.conduit.transport.spi.IoEventLoopGroup;
import io.conduit.transport.spi.IoStreamSocket;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What the channel core makes only when needed (so that an idle connection stays small, see
 * docs/benchmarks.md) behaves as if it had been there from the start: the id text, the close future, the
 * outbound buffer, the compactly kept peer address.
 */
class LazyChannelStateTest {

    private final IoEventLoopGroup group = new IoEventLoopGroup(1, null, IdleIoHandler::new);

    @AfterEach
    void tearDown() throws Exception {
        group.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
    }

    /** A scripted socket whose peer is {@code peer} while it is open, and unknown once closed (like getpeername). */
    private static final class PeerSocket extends ChannelCoreTest.ScriptedSocket {
        final SocketAddress peer;
        final AtomicInteger remoteAddressCalls = new AtomicInteger();

        PeerSocket(SocketAddress peer) {
            this.peer = peer;
        }

        @Override
        public SocketAddress remoteAddress() {
            remoteAddressCalls.incrementAndGet();
            return open ? peer : null;
        }
    }

    private IoSocketChannel registered(IoStreamSocket socket) throws Exception {
        IoSocketChannel channel = new IoSocketChannel("scripted", socket, null, group.next());
        channel.config().setOption(ChannelOption.ALLOCATOR, BufferAllocator.unpooled());
        channel.config().setOption(ChannelOption.AUTO_READ, false);
        channel.register().sync();
        group.next().submit(() -> { }).sync(); // registration (and activation) ran to its end on the loop
        return channel;
    }

    @Test
    void theIdTextIsTheSameStringOnEveryCallAndUniqueAcrossChannels() {
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            IoSocketChannel channel = new IoSocketChannel("scripted", new ChannelCoreTest.ScriptedSocket(),
                    null, null);
            String id = channel.id();
            assertTrue(id.matches("0x[0-9a-f]{8}"), id);
            assertSame(id, channel.id(), "made once, then the same String");
            assertTrue(channel.toString().contains(id), channel.toString());
            assertTrue(ids.add(id), "unique: " + id);
        }
    }

    @Test
    void theCloseFutureAskedBeforeTheCloseIsTheOneThatCompletes() throws Exception {
        IoSocketChannel channel = registered(new ChannelCoreTest.ScriptedSocket());
        Future<Void> before = channel.closeFuture();
        assertSame(before, channel.closeFuture(), "one close future per channel");
        assertFalse(before.isDone());
        AtomicInteger notified = new AtomicInteger();
        before.addListener(f -> notified.incrementAndGet());
        channel.close().sync();
        assertTrue(before.await(5, TimeUnit.SECONDS));
        assertTrue(before.isSuccess());
        assertSame(before, channel.closeFuture(), "the same future after the close");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (notified.get() == 0 && System.nanoTime() - deadline < 0) {
            Thread.sleep(1);
        }
        assertEquals(1, notified.get(), "its listener ran once");
    }

    @Test
    void aCloseFutureFirstAskedAfterTheCloseIsAlreadyComplete() throws Exception {
        IoSocketChannel channel = registered(new ChannelCoreTest.ScriptedSocket());
        channel.close().sync();
        // close() completes just before the close does (same loop task): let that task end
        group.next().submit(() -> { }).sync();
        Future<Void> after = channel.closeFuture();
        assertTrue(after.isDone(), "made after the close: completed at once");
        assertTrue(after.isSuccess());
        assertSame(after, channel.closeFuture());
        // a second close is answered through the (lazily made) close future
        assertTrue(channel.close().await(5, TimeUnit.SECONDS));
    }

    @Test
    void aChannelNeverRegisteredCompletesItsCloseFutureWhenItsLoopRejectsTheRegistration() throws Exception {
        IoEventLoopGroup other = new IoEventLoopGroup(1, null, IdleIoHandler::new);
        other.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
        IoSocketChannel channel = new IoSocketChannel("scripted", new ChannelCoreTest.ScriptedSocket(), null,
                null);
        Future<Void> registration = channel.register(other.next());
        assertTrue(registration.await(5, TimeUnit.SECONDS));
        assertFalse(registration.isSuccess());
        assertTrue(channel.closeFuture().isDone(), "closed without a loop: the close future is complete");
        assertFalse(channel.isOpen());
    }

    @Test
    void anIpv4PeerIsKnownAfterTheCloseAndTheSameObjectIsReturnedOnceMade() throws Exception {
        InetSocketAddress peer = new InetSocketAddress(InetAddress.getByAddress(new byte[] {10, 1, (byte) 200, 3}),
                65_001);
        PeerSocket socket = new PeerSocket(peer);
        IoSocketChannel channel = registered(socket);
        assertTrue(channel.isActive());
        channel.close().sync();
        assertFalse(socket.open, "the socket no longer knows its peer");
        assertTrue(channel.toString().contains("R:/10.1.200.3:65001"), channel.toString());
        SocketAddress remote = channel.remoteAddress();
        assertEquals(peer, remote, "kept compactly since activation");
        assertSame(remote, channel.remoteAddress(), "made once, then kept");
        assertEquals(1, socket.remoteAddressCalls.get(), "asked once, at activation");
    }

    @Test
    void anIpv6PeerIsKeptAsItIs() throws Exception {
        InetSocketAddress peer = new InetSocketAddress(InetAddress.getByName("fe80::1"), 443);
        IoSocketChannel channel = registered(new PeerSocket(peer));
        channel.close().sync();
        assertSame(peer, channel.remoteAddress());
    }

    @Test
    void aChannelThatNeverWroteIsWritableAndWaterMarksSetBeforeTheFirstWriteApply() throws Exception {
        ChannelCoreTest.ScriptedSocket socket = new ChannelCoreTest.ScriptedSocket();
        IoSocketChannel channel = registered(socket);
        assertTrue(channel.isWritable());
        assertEquals(WriteBufferWaterMark.DEFAULT.high() + 1L, channel.bytesBeforeUnwritable());
        assertEquals(0, channel.bytesBeforeWritable());
        channel.flush(); // nothing written yet: a flush has nothing to do
        channel.config().setOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(20, 50));
        assertEquals(51, channel.bytesBeforeUnwritable());
        socket.bytesPerWrite = 0; // full
        Future<Void> w = channel.writeAndFlush(channel.alloc().buffer(60).writeBytes(new byte[60]));
        group.next().submit(() -> { }).sync();
        assertFalse(channel.isWritable(), "the marks set before the first write apply to it");
        assertEquals(60 - 20 + 1, channel.bytesBeforeWritable());
        channel.config().setOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(10, 100));
        assertEquals(60 - 10 + 1, channel.bytesBeforeWritable(), "and a later change reaches the buffer");
        socket.bytesPerWrite = 1000;
        group.next().submit(() -> socket.events.writeReady()).sync();
        w.sync();
        assertTrue(channel.isWritable());
        channel.close().sync();
    }

    @Test
    void theStatsListedInOpenChannelsAreNotTheChannelButNameIt() throws Exception {
        IoSocketChannel channel = registered(new ChannelCoreTest.ScriptedSocket());
        ChannelStats stats = OpenChannels.snapshot().stream().filter(s -> s.channel() == channel).findFirst()
                .orElseThrow(() -> new AssertionError("not listed"));
        assertNotNull(stats);
        assertFalse(stats instanceof io.conduit.channel.Channel, "no stats methods on the channel's public type");
        channel.close().sync();
        assertFalse(OpenChannels.snapshot().stream().anyMatch(s -> s.channel() == channel),
                "removed when the close completed, before close() returned");
    }
}
