package io.conduit.testsuite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.buffer.Buffer;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.WriteBufferWaterMark;
import io.conduit.transport.ChannelType;

import java.util.List;
import java.util.zip.CRC32;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A slow reader with a small {@code SO_RCVBUF} and a writer with {@code WRITE_SPIN_COUNT=1} sending several MiB:
 * every byte arrives in order, another channel on the writer's event loop keeps making progress meanwhile, and
 * water-mark events alternate unwritable/writable in order.
 */
public abstract class WriteBackpressureTest extends AbstractTransportTest {

    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void slowReaderGetsEveryByteWhileTheLoopStaysFair(Combo combo) throws Exception {
        if (!runnable(combo)) {
            return;
        }
        // SO_RCVBUF 16 KiB: smaller windows make loopback TCP crawl (delayed ACKs), which tests TCP, not us
        int total = combo.allocator() == AllocatorKind.ONE_BYTE_READS ? 512 * 1024 : 3 << 20;
        int chunk = 64 * 1024;
        Recorder slow = new Recorder();
        Channel server = bindServer(combo, ChannelType.TCP, loopback(), new EchoOrRecord(slow),
                b -> b.childOption(ChannelOption.AUTO_READ, false).childOption(ChannelOption.SO_RCVBUF, 16 * 1024));
        Channel writer = null;
        Channel other = null;
        try {
            Recorder writerEvents = new Recorder();
            writer = connect(combo, ChannelType.TCP, server.localAddress(), writerEvents,
                    b -> b.option(ChannelOption.WRITE_SPIN_COUNT, 1).option(ChannelOption.SO_SNDBUF, 8192)
                            .option(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(16 * 1024, 64 * 1024)));
            await(slow.active, "slow reader active");
            Channel slowChild = slow.channel();
            CRC32 sent = new CRC32();
            for (int off = 0; off < total; off += chunk) {
                byte[] data = randomBytes(chunk, off);
                sent.update(data);
                writer.writeAndFlush(writer.alloc().buffer(chunk).writeBytes(data));
            }
            // another channel on the same loop makes progress while the big write is stuck
            Recorder otherEvents = new Recorder();
            other = await(new io.conduit.bootstrap.Bootstrap().transport(combo.clientTransport())
                    .group(writer.eventLoop()).handler(otherEvents)
                    .option(ChannelOption.ALLOCATOR, combo.allocator().allocator()).connect(server.localAddress()));
            assertTrue(other.eventLoop() == writer.eventLoop(), "both clients on one loop");
            // the second server child echoes (see EchoOrRecord)
            for (int i = 0; i < 5; i++) {
                int expected = (i + 1) * 10;
                await(other.writeAndFlush(other.alloc().buffer(10).writeBytes(new byte[10])));
                eventually("ping " + i + " echoed on the other channel", () -> otherEvents.byteCount() >= expected);
            }
            assertTrue(slow.byteCount() < total, "the slow reader has not read yet");
            assertTrue(!writer.isWritable(), "the writer is above its high water mark");
            // now read slowly: a read() whenever the previous read completed
            slowChild.config().setAutoRead(true);
            eventually("all " + total + " bytes at the slow reader (got " + slow.byteCount() + ")",
                    () -> slow.byteCount() == total);
            CRC32 got = new CRC32();
            got.update(slow.bytes());
            assertEquals(sent.getValue(), got.getValue(), "bytes arrived intact and in order");
            eventually("writable again", writer::isWritable);
            List<String> wm = writerEvents.events().stream().filter(e -> e.startsWith("writable:")).toList();
            assertTrue(wm.size() >= 2 && wm.size() % 2 == 0, "writability events: " + wm);
            for (int i = 0; i < wm.size(); i++) {
                assertEquals(i % 2 == 0 ? "writable:false" : "writable:true", wm.get(i), "in order: " + wm);
            }
        } finally {
            closeAll(other, writer, server);
        }
    }

    /** First server child records (the slow reader); later ones echo. */
    @io.conduit.channel.ChannelHandler.Sharable
    static final class EchoOrRecord extends io.conduit.channel.ChannelInitializer<Channel> {
        private final Recorder first;
        private final java.util.concurrent.atomic.AtomicBoolean used = new java.util.concurrent.atomic.AtomicBoolean();

        EchoOrRecord(Recorder first) {
            this.first = first;
        }

        @Override
        protected void initChannel(Channel ch) {
            if (used.compareAndSet(false, true)) {
                ch.pipeline().addLast(first);
            } else {
                ch.config().setAutoRead(true);
                ch.pipeline().addLast(new EchoHandler());
            }
        }
    }

}
