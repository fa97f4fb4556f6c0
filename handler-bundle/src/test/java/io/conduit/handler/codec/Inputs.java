package io.conduit.handler.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import io.conduit.buffer.Buffer;
import io.conduit.buffer.BufferAllocator;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.embedded.EmbeddedChannel;

/**
 * Feeds byte streams to a decoder on an {@link EmbeddedChannel} in adversarial ways and checks reference counts:
 * every buffer a test hands in is tracked, and {@link #assertAllReleased()} fails when one is still alive.
 */
final class Inputs {

    private final List<Buffer> handedIn = new ArrayList<>();
    private final BufferAllocator alloc;

    Inputs(BufferAllocator alloc) {
        this.alloc = alloc;
    }

    Inputs() {
        this(BufferAllocator.pooled());
    }

    /** A tracked buffer holding {@code bytes}. */
    Buffer buffer(byte[] bytes, int from, int to) {
        Buffer b = alloc.buffer(Math.max(1, to - from));
        b.writeBytes(bytes, from, to - from);
        handedIn.add(b);
        return b;
    }

    /** Fails when a buffer handed in is still referenced. */
    void assertAllReleased() {
        for (int i = 0; i < handedIn.size(); i++) {
            assertEquals(0, handedIn.get(i).refCnt(), "input buffer " + i + " of " + handedIn.size() + " leaked");
        }
    }

    /** Splits {@code stream} at the given cut positions (ascending) and writes each piece as one read. */
    void write(EmbeddedChannel ch, byte[] stream, int... cuts) {
        int from = 0;
        for (int cut : cuts) {
            if (cut > from) {
                ch.writeInbound(buffer(stream, from, cut));
                from = cut;
            }
        }
        if (from < stream.length) {
            ch.writeInbound(buffer(stream, from, stream.length));
        }
    }

    /** Writes {@code stream} one byte per read. */
    void writeBytewise(EmbeddedChannel ch, byte[] stream) {
        for (int i = 0; i < stream.length; i++) {
            ch.writeInbound(buffer(stream, i, i + 1));
        }
    }

    /** Reads every inbound message as bytes, releasing each, and checks it was freed. */
    static List<byte[]> drain(EmbeddedChannel ch) {
        List<byte[]> out = new ArrayList<>();
        for (Object m; (m = ch.readInbound()) != null;) {
            Buffer b = (Buffer) m;
            out.add(b.toByteArray());
            b.release();
        }
        return out;
    }

    static List<String> strings(List<byte[]> frames) {
        List<String> s = new ArrayList<>();
        frames.forEach(f -> s.add(new String(f, StandardCharsets.ISO_8859_1)));
        return s;
    }

    static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** Records exceptions that pass it (so the embedded channel does not rethrow them). */
    static final class Errors implements ChannelHandler {
        final List<Throwable> seen = new ArrayList<>();

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            seen.add(cause);
        }
    }

    /**
     * Runs {@code check} for the stream cut once at every position, once glued, and once one byte per read;
     * {@code check} receives the frames decoded and the errors seen, after end of input.
     */
    static void everySplit(Supplier<ChannelHandler> decoder, byte[] stream, Check check) {
        for (int cut = 0; cut <= stream.length; cut++) {
            int at = cut;
            run(decoder, check, "cut at " + at, (in, ch) -> in.write(ch, stream, at));
        }
        run(decoder, check, "glued", (in, ch) -> in.write(ch, stream));
        run(decoder, check, "one byte per read", (in, ch) -> in.writeBytewise(ch, stream));
    }

    private static void run(Supplier<ChannelHandler> decoder, Check check, String how, Feed feed) {
        Inputs in = new Inputs();
        Errors errors = new Errors();
        EmbeddedChannel ch = new EmbeddedChannel(decoder.get(), errors);
        feed.feed(in, ch);
        ch.finish();
        List<byte[]> frames = drain(ch);
        check.check(how, frames, errors.seen);
        in.assertAllReleased();
    }

    interface Feed {
        void feed(Inputs in, EmbeddedChannel ch);
    }

    interface Check {
        void check(String how, List<byte[]> frames, List<Throwable> errors);
    }
}
