package io.conduit.handler.ssl;

import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntFunction;

import io.conduit.buffer.Buffer;
import io.conduit.buffer.BufferAllocator;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.embedded.EmbeddedChannel;

/**
 * A TLS client and server on two {@link EmbeddedChannel}s, with the bytes each writes carried to the other by
 * {@link #shuttle()}: the whole TLS exchange in memory, on the test thread, with control over how the encrypted
 * bytes are cut into reads.
 */
final class TlsPair {

    /** What reaches the handler after TLS: plain bytes, user events, whether the channel went inactive. */
    static final class Recorder implements ChannelHandler {
        final ByteArrayOutputStream plain = new ByteArrayOutputStream();
        final List<Object> events = new CopyOnWriteArrayList<>();
        int reads;
        boolean inactive;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            Buffer b = (Buffer) msg;
            plain.writeBytes(b.toByteArray());
            reads++;
            b.release();
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
            events.add(event);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            inactive = true;
        }

        <T> List<T> events(Class<T> type) {
            return events.stream().filter(type::isInstance).map(type::cast).toList();
        }
    }

    final TlsHandler clientTls;
    final TlsHandler serverTls;
    final Recorder client = new Recorder();
    final Recorder server = new Recorder();
    final EmbeddedChannel serverChannel;
    final EmbeddedChannel clientChannel;
    /** Every encrypted byte carried client to server, and server to client, in order. */
    final ByteArrayOutputStream clientToServer = new ByteArrayOutputStream();
    final ByteArrayOutputStream serverToClient = new ByteArrayOutputStream();
    /** How a carried chunk of n bytes is cut into reads: the sizes of the pieces, in order; null: one read. */
    IntFunction<int[]> cutter;

    TlsPair(TlsHandler serverTls, TlsHandler clientTls) {
        this(serverTls, clientTls, EmbeddedChannel::new);
    }

    /** @param serverChannel makes the server's channel from its handlers (e.g. one that can half-close) */
    TlsPair(TlsHandler serverTls, TlsHandler clientTls,
            java.util.function.Function<ChannelHandler[], EmbeddedChannel> serverChannel) {
        this(serverTls, clientTls, serverChannel, EmbeddedChannel::new);
    }

    /** @param clientChannel makes the client's channel from its handlers, like {@code serverChannel} */
    TlsPair(TlsHandler serverTls, TlsHandler clientTls,
            java.util.function.Function<ChannelHandler[], EmbeddedChannel> serverChannel,
            java.util.function.Function<ChannelHandler[], EmbeddedChannel> clientChannel) {
        this.serverTls = serverTls;
        this.clientTls = clientTls;
        this.serverChannel = serverChannel.apply(new ChannelHandler[] {serverTls, server});
        this.clientChannel = clientChannel.apply(new ChannelHandler[] {clientTls, client});
    }

    /** Carries bytes both ways until neither side has anything to send; returns the bytes carried. */
    long shuttle() {
        long total = 0;
        for (int round = 0; round < 1000; round++) {
            long moved = carry(clientChannel, serverChannel, clientToServer) + carry(serverChannel, clientChannel, serverToClient);
            total += moved;
            if (moved == 0) {
                return total;
            }
        }
        throw new AssertionError("still exchanging after 1000 rounds");
    }

    private long carry(EmbeddedChannel from, EmbeddedChannel to, ByteArrayOutputStream log) {
        ByteArrayOutputStream chunk = new ByteArrayOutputStream();
        for (Object o = from.readOutbound(); o != null; o = from.readOutbound()) {
            Buffer b = (Buffer) o;
            chunk.writeBytes(b.toByteArray());
            b.release();
        }
        byte[] bytes = chunk.toByteArray();
        log.writeBytes(bytes);
        if (bytes.length == 0 || !to.isOpen()) {
            return bytes.length;
        }
        int[] pieces = cutter == null ? new int[] {bytes.length} : cutter.apply(bytes.length);
        int from0 = 0;
        for (int n : pieces) {
            if (!to.isOpen()) {
                break;
            }
            Buffer piece = BufferAllocator.unpooled().buffer(Math.max(n, 1));
            piece.writeBytes(bytes, from0, n);
            from0 += n;
            to.writeInbound(piece);
        }
        return bytes.length;
    }

    /** Writes {@code bytes} from {@code side} as one buffer and flushes. */
    static io.conduit.concurrent.Future<Void> send(EmbeddedChannel side, byte[] bytes) {
        Buffer b = BufferAllocator.unpooled().buffer(bytes.length);
        b.writeBytes(bytes);
        return side.writeAndFlush(b);
    }

    /** @return cuts of n bytes into single bytes */
    static int[] oneByteEach(int n) {
        int[] a = new int[n];
        java.util.Arrays.fill(a, 1);
        return a;
    }

    /** @return the number of TLS records in {@code bytes} (a whole number of records) */
    static int records(byte[] bytes) {
        int count = 0;
        for (int p = 0; p + 5 <= bytes.length; p += 5 + (((bytes[p + 3] & 0xff) << 8) | (bytes[p + 4] & 0xff))) {
            count++;
        }
        return count;
    }
}
