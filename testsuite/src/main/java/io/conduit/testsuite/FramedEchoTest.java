package io.conduit.testsuite;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.conduit.buffer.Buffer;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.ChannelInitializer;
import io.conduit.handler.codec.LengthFieldBasedFrameDecoder;
import io.conduit.handler.codec.LengthFieldPrepender;
import io.conduit.transport.ChannelType;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A length-field framed echo (the handler bundle's {@link LengthFieldBasedFrameDecoder} and
 * {@link LengthFieldPrepender}) over TCP: the client sends frames of 0 bytes to 64 KiB as one byte stream cut at
 * odd places, so frames arrive split across reads and glued together; every frame comes back whole, in order, and
 * every decoded frame buffer is released.
 */
public abstract class FramedEchoTest extends AbstractTransportTest {

    private static final int MAX_FRAME = 4 + 65_536;

    /** Collects the bodies of the frames the client's decoder passes on, releasing each buffer. */
    private static final class Frames implements ChannelHandler {
        final List<byte[]> bodies = new CopyOnWriteArrayList<>();
        final List<Throwable> errors = new CopyOnWriteArrayList<>();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            Buffer frame = (Buffer) msg;
            bodies.add(frame.toByteArray());
            frame.release();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            errors.add(cause);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void framesComeBackWholeAndInOrder(Combo combo) {
        if (!runnable(combo)) {
            return;
        }
        ChannelInitializer<Channel> server = new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(new LengthFieldBasedFrameDecoder(MAX_FRAME, 0, 4, 0, 4),
                        new LengthFieldPrepender(4), new EchoHandler());
            }
        };
        Channel listener = bindServer(combo, ChannelType.TCP, loopback(), server, null);
        Frames frames = new Frames();
        ChannelInitializer<Channel> client = new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(new LengthFieldBasedFrameDecoder(MAX_FRAME, 0, 4, 0, 4), frames);
            }
        };
        Channel ch = connect(combo, ChannelType.TCP, listener.localAddress(), client, null);
        try {
            int count = combo.allocator() == AllocatorKind.ONE_BYTE_READS ? 40 : 400;
            java.io.ByteArrayOutputStream stream = new java.io.ByteArrayOutputStream();
            for (int i = 0; i < count; i++) {
                byte[] body = body(i);
                stream.write(body.length >>> 24);
                stream.write(body.length >>> 16);
                stream.write(body.length >>> 8);
                stream.write(body.length);
                stream.writeBytes(body);
            }
            byte[] all = stream.toByteArray();
            for (int from = 0, step = 1; from < all.length; step = step * 7 % 1009 + 1) {
                int n = Math.min(step, all.length - from);
                Buffer piece = ch.alloc().buffer(n);
                piece.writeBytes(all, from, n);
                ch.writeAndFlush(piece);
                from += n;
            }
            eventually(count + " frames echoed (got " + frames.bodies.size() + ")",
                    () -> frames.bodies.size() >= count || !frames.errors.isEmpty());
            assertEquals(List.of(), frames.errors);
            assertEquals(count, frames.bodies.size());
            for (int i = 0; i < count; i++) {
                assertArrayEquals(body(i), frames.bodies.get(i), "frame " + i);
            }
        } finally {
            closeAll(ch, listener);
        }
    }

    /** Frame {@code i}'s body: 0, 64 bytes and larger sizes up to 64 KiB in turn. */
    private static byte[] body(int i) {
        int size = switch (i % 5) {
            case 0 -> 0;
            case 1 -> 64;
            case 2 -> 1 + i;
            case 3 -> 1500;
            default -> i % 25 == 4 ? 65_536 : 9_000;
        };
        return randomBytes(size, i);
    }
}
