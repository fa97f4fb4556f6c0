package io.conduit.epoll;

import static org.junit.jupiter.api.Assertions.fail;

import io.conduit.buffer.Buffer;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.DatagramPacket;
import io.conduit.concurrent.Future;
import io.conduit.testsuite.Waits;
import io.conduit.transport.spi.IoEventLoop;
import io.conduit.transport.spi.IoEventLoopGroup;

import java.io.ByteArrayOutputStream;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Helpers of the epoll feature tests: the transport, bounded waits, and small recording handlers. */
final class EpollTestSupport {

    static final long WAIT_SECONDS = 20;

    private EpollTestSupport() {
    }

    /** @return the epoll transport; fails (never skips) when it cannot load here */
    static EpollTransport transport() {
        return (EpollTransport) new EpollTransportProvider().transport();
    }

    static IoEventLoopGroup group(int loops) {
        return transport().newEventLoopGroup(loops, null, IoEventLoopGroup.Options.defaults());
    }

    static void close(IoEventLoopGroup group) throws InterruptedException {
        Waits.shutdown(group);
    }

    /** @return the handler of {@code loop}, after making sure its thread runs */
    static EpollIoHandler handlerOf(IoEventLoop loop) {
        await(loop.submit(() -> { }));
        return (EpollIoHandler) loop.ioHandler();
    }

    static <T> T await(Future<T> f) {
        return Waits.await(f, WAIT_SECONDS);
    }

    static Throwable awaitFailure(Future<?> f) {
        return Waits.awaitFailure(f, WAIT_SECONDS);
    }

    static void eventually(String what, BooleanSupplier condition) {
        Waits.eventually(what, WAIT_SECONDS, condition);
    }

    static void closeAll(Channel... channels) {
        Waits.closeAll(channels);
    }

    /** Collects the bytes of stream reads; thread-safe. */
    @ChannelHandler.Sharable
    static class Bytes implements ChannelHandler {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final LinkedBlockingQueue<Object> events = new LinkedBlockingQueue<>();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            try (Buffer b = (Buffer) msg) {
                byte[] a = new byte[b.readableBytes()];
                b.readBytes(a);
                synchronized (out) {
                    out.write(a, 0, a.length);
                }
            }
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
            events.add(event);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            events.add("inactive");
        }

        byte[] bytes() {
            synchronized (out) {
                return out.toByteArray();
            }
        }

        int size() {
            synchronized (out) {
                return out.size();
            }
        }
    }

    /** Collects received datagrams (content copied, packet released); thread-safe. */
    @ChannelHandler.Sharable
    static final class Datagrams implements ChannelHandler {
        record Received(byte[] content, java.net.InetSocketAddress sender, java.net.InetSocketAddress recipient,
                boolean truncated) {
        }

        final LinkedBlockingQueue<Received> received = new LinkedBlockingQueue<>();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof DatagramPacket p) {
                try (p) {
                    byte[] a = new byte[p.content().readableBytes()];
                    p.content().readBytes(a);
                    received.add(new Received(a, p.sender(), p.recipient(), p.truncated()));
                }
            } else {
                try (Buffer b = (Buffer) msg) {
                    byte[] a = new byte[b.readableBytes()];
                    b.readBytes(a);
                    received.add(new Received(a, null, null, false));
                }
            }
        }

        Received poll() throws InterruptedException {
            Received r = received.poll(WAIT_SECONDS, TimeUnit.SECONDS);
            if (r == null) {
                fail("no datagram within " + WAIT_SECONDS + " s");
            }
            return r;
        }
    }
}
