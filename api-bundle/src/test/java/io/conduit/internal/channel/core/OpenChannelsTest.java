package io.conduit.internal.channel.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.buffer.BufferAllocator;
import io.conduit.channel.ChannelOption;
import io.conduit.transport.spi.IdleIoHandler;
import io.conduit.transport.spi.IoEventLoopGroup;

import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The shared channel core lists its channels in {@link OpenChannels} with their traffic (Gogo conduit:channels). */
class OpenChannelsTest {

    private final IoEventLoopGroup group = new IoEventLoopGroup(1, null, IdleIoHandler::new);

    @AfterEach
    void tearDown() throws Exception {
        group.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
    }

    private static Optional<ChannelStats> listed(IoSocketChannel channel) {
        return OpenChannels.snapshot().stream().filter(s -> s.channel() == channel).findFirst();
    }

    @Test
    void aChannelIsListedFromRegistrationUntilCloseWithTheBytesItWrote() throws Exception {
        ChannelCoreTest.ScriptedSocket socket = new ChannelCoreTest.ScriptedSocket();
        IoSocketChannel channel = new IoSocketChannel("scripted", socket, null, group.next());
        channel.config().setOption(ChannelOption.ALLOCATOR, BufferAllocator.unpooled());
        channel.config().setOption(ChannelOption.AUTO_READ, false);
        assertFalse(listed(channel).isPresent(), "not listed before registration");

        long before = System.nanoTime();
        channel.register().sync();
        ChannelStats stats = listed(channel).orElseThrow(() -> new AssertionError("not listed after registration"));
        assertTrue(stats.openedAtNanos() - before >= 0, "opened at registration");
        assertEquals(0, stats.bytesWritten());
        assertEquals(0, stats.bytesRead());

        channel.writeAndFlush(channel.alloc().buffer(25).writeBytes(new byte[25])).sync();
        assertEquals(25, stats.bytesWritten(), "counted across three partial writes of 10 bytes");

        channel.close().sync();
        // the removal is a close-future listener: it may run just after close() returned
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (listed(channel).isPresent() && System.nanoTime() - deadline < 0) {
            Thread.sleep(1);
        }
        assertFalse(listed(channel).isPresent(), "removed when the close future completes");
    }

    @Test
    void snapshotIsOrderedOldestFirstAndAddIsIdempotent() {
        ChannelStats a = new FixedStats(100);
        ChannelStats b = new FixedStats(50);
        try {
            assertTrue(OpenChannels.add(a));
            assertFalse(OpenChannels.add(a));
            assertTrue(OpenChannels.add(b));
            int ia = OpenChannels.snapshot().indexOf(a);
            int ib = OpenChannels.snapshot().indexOf(b);
            assertTrue(ib >= 0 && ib < ia, "b (opened at 50) before a (opened at 100)");
        } finally {
            assertTrue(OpenChannels.remove(a));
            assertTrue(OpenChannels.remove(b));
            assertFalse(OpenChannels.remove(b));
            assertFalse(OpenChannels.remove(null));
        }
    }

    private static final class FixedStats implements ChannelStats {
        private final long openedAtNanos;
        private final io.conduit.channel.embedded.EmbeddedChannel channel =
                new io.conduit.channel.embedded.EmbeddedChannel();

        FixedStats(long openedAtNanos) {
            this.openedAtNanos = openedAtNanos;
        }

        @Override
        public io.conduit.channel.Channel channel() {
            return channel;
        }

        @Override
        public long bytesRead() {
            return 0;
        }

        @Override
        public long bytesWritten() {
            return 0;
        }

        @Override
        public long openedAtNanos() {
            return openedAtNanos;
        }
    }
}
