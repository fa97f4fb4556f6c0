package io.conduit.testsuite;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.conduit.buffer.Buffer;
import io.conduit.bootstrap.Bootstrap;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.ChannelInitializer;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.WriteBufferWaterMark;
import io.conduit.transport.ChannelType;
import io.conduit.transport.Transport;

import java.util.concurrent.CompletableFuture;
import java.util.zip.CRC32;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A relay on one event loop, as the gateway builds it: a source server streams many MiB; the relay's backend
 * channel reads them (auto-read off at first) and writes them to the frontend channel the client is connected to;
 * the frontend's writability turns the backend's auto-read off and on. Turning it on from inside the
 * frontend's write loop delivers the backend's held input at once, which is written and flushed into the
 * frontend while it is still writing: every byte must still reach the client, in order.
 */
public abstract class RelayBackpressureTest extends AbstractTransportTest {

    /** Bytes the source sends. */
    protected int totalBytes(Combo combo) {
        return combo.allocator() == AllocatorKind.ONE_BYTE_READS ? 1 << 20 : 16 << 20;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void aRelayWhoseWritabilityTogglesTheOtherSidesAutoReadDeliversEveryByte(Combo combo) throws Exception {
        if (!runnable(combo)) {
            return;
        }
        int total = totalBytes(combo);
        int chunk = 64 * 1024;
        CRC32 sentCrc = new CRC32();
        byte[][] chunks = new byte[total / chunk][];
        for (int i = 0; i < chunks.length; i++) {
            chunks[i] = randomBytes(chunk, i);
            sentCrc.update(chunks[i]);
        }
        Channel source = bindServer(combo, ChannelType.TCP, loopback(), new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(new Source(chunks));
            }
        }, null);
        CompletableFuture<Channel> backendFuture = new CompletableFuture<>();
        Channel relay = bindServer(combo, ChannelType.TCP, loopback(), new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(new Frontend(combo.serverTransport(), source, combo, backendFuture));
            }
        }, b -> b.childOption(ChannelOption.AUTO_READ, false)
                .childOption(ChannelOption.SO_SNDBUF, 16 * 1024)
                .childOption(ChannelOption.WRITE_SPIN_COUNT, 2)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(8 * 1024, 32 * 1024)));
        Channel client = null;
        try {
            Recorder received = new Recorder();
            client = connect(combo, ChannelType.TCP, relay.localAddress(), received,
                    b -> b.option(ChannelOption.SO_RCVBUF, 64 * 1024));
            Channel backend = await(backendFuture, "backend connected");
            eventually("all " + total + " bytes at the client (got " + received.byteCount() + ")",
                    () -> received.byteCount() >= total);
            assertEquals(total, received.byteCount());
            CRC32 got = new CRC32();
            got.update(received.bytes());
            assertEquals(sentCrc.getValue(), got.getValue(), "bytes arrived intact and in order");
        } finally {
            closeAll(client, relay, source);
        }
    }

    /** Streams the chunks to its connection, as fast as its writability allows. */
    static final class Source implements ChannelHandler {
        private final byte[][] chunks;

        Source(byte[][] chunks) {
            this.chunks = chunks;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            pump(ctx);
            ctx.fireChannelActive();
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            pump(ctx);
        }

        private int next; // loop-confined: index of the next chunk to write

        private void pump(ChannelHandlerContext ctx) {
            Channel ch = ctx.channel();
            while (ch.isWritable() && next < chunks.length) {
                byte[] c = chunks[next++];
                ch.write(ch.alloc().buffer(c.length).writeBytes(c));
            }
            ch.flush();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ((Buffer) msg).release();
        }
    }

    /** The client-facing side: connects the backend on its own loop; its writability drives the backend's auto-read. */
    static final class Frontend implements ChannelHandler {
        private final Transport transport;
        private final Channel source;
        private final Combo combo;
        private final CompletableFuture<Channel> backendFuture;
        private Channel backend; // loop-confined

        Frontend(Transport transport, Channel source, Combo combo, CompletableFuture<Channel> backendFuture) {
            this.transport = transport;
            this.source = source;
            this.combo = combo;
            this.backendFuture = backendFuture;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            Channel in = ctx.channel();
            new Bootstrap().transport(transport).group(in.eventLoop()).channelType(ChannelType.TCP)
                    .option(ChannelOption.AUTO_READ, false)
                    .option(ChannelOption.ALLOCATOR, combo.allocator().allocator())
                    .handler(new Backend(in))
                    .connect(source.localAddress()).addListener(f -> {
                        if (!f.isSuccess()) {
                            backendFuture.completeExceptionally(f.cause());
                            in.close();
                            return;
                        }
                        backend = f.getNow();
                        backendFuture.complete(backend);
                        backend.config().setAutoRead(in.isWritable());
                    });
            ctx.fireChannelActive();
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            if (backend != null) {
                backend.config().setAutoRead(ctx.channel().isWritable());
            }
            ctx.fireChannelWritabilityChanged();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ((Buffer) msg).release();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (backend != null) {
                backend.close();
            }
        }
    }

    /** The source-facing side: what it reads goes to the frontend. */
    static final class Backend implements ChannelHandler {
        private final Channel frontend;

        Backend(Channel frontend) {
            this.frontend = frontend;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            frontend.write(msg);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            frontend.flush();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
            frontend.close();
        }
    }
}
