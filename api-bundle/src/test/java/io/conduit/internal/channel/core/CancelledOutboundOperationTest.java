package io.conduit.internal.channel.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.buffer.BufferAllocator;
import io.conduit.channel.ChannelClosedException;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.ChannelOption;
import io.conduit.concurrent.EventExecutor;
import io.conduit.concurrent.EventLoop;
import io.conduit.concurrent.Future;
import io.conduit.concurrent.Promise;
import io.conduit.internal.channel.core.ChannelCoreTest.ScriptedSocket;
import io.conduit.transport.spi.IdleIoHandler;
import io.conduit.transport.spi.IoDatagramSocket;
import io.conduit.transport.spi.IoEventLoopGroup;
import io.conduit.transport.spi.IoEvents;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Cancelled outbound operations against the shared channel core with scripted sockets: a cancelled connect
 * closes a stream channel through every entry (the channel, the pipeline, a handler's context, a handler with an
 * executor of its own) and at every moment (on its way, inside the socket's connect, pending at the socket);
 * bind, disconnect and close either were stopped by the cancel (nothing happened) or refuse it. The races are
 * forced: a loop or executor kept busy by a waiting task while the test thread cancels, or a cancel from another
 * thread at the moment the socket is called.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CancelledOutboundOperationTest {

    private static final SocketAddress PEER = new InetSocketAddress(InetAddress.getLoopbackAddress(), 9);

    /** A stream socket that is not connected until its connect says so; counts the calls the core made. */
    static final class ConnectingSocket extends ScriptedSocket {
        /** What {@link #connect} answers: {@code true} = connected at once, {@code false} = in progress. */
        volatile boolean connectsAtOnce;
        volatile boolean connected;
        volatile boolean bound;
        /** Runs inside {@link #connect}/{@link #bind}/{@link #close} (on the loop), when set. */
        volatile Runnable duringConnect;
        volatile Runnable duringBind;
        volatile Runnable duringClose;
        final AtomicInteger connectCalls = new AtomicInteger();
        final AtomicInteger bindCalls = new AtomicInteger();

        @Override
        public boolean connect(SocketAddress remoteAddress, SocketAddress localAddress) {
            connectCalls.incrementAndGet();
            run(duringConnect);
            connected = connectsAtOnce;
            return connectsAtOnce;
        }

        @Override
        public boolean finishConnect() {
            return connected;
        }

        @Override
        public boolean isConnected() {
            return connected;
        }

        @Override
        public void bind(SocketAddress localAddress) {
            bindCalls.incrementAndGet();
            run(duringBind);
            bound = true;
        }

        @Override
        public SocketAddress localAddress() {
            return bound || connected ? super.localAddress() : null;
        }

        @Override
        public SocketAddress remoteAddress() {
            return connected ? super.remoteAddress() : null;
        }

        @Override
        public void close() {
            run(duringClose);
            super.close();
        }

        private static void run(Runnable r) {
            if (r != null) {
                r.run();
            }
        }
    }

    /** An unconnected datagram socket whose connect can run a hook; only what the core calls here works. */
    static final class ConnectingDatagramSocket implements IoDatagramSocket {
        volatile boolean open = true;
        volatile boolean connected;
        volatile Runnable duringConnect;
        final AtomicInteger connectCalls = new AtomicInteger();

        @Override
        public void register(EventLoop loop, IoEvents events) {
        }

        @Override
        public void deregister(Runnable whenReleased) {
            if (whenReleased != null) {
                whenReleased.run();
            }
        }

        @Override
        public void interestOps(int ops) {
        }

        @Override
        public boolean isOpen() {
            return open;
        }

        @Override
        public void close() {
            open = false;
        }

        @Override
        public void bind(SocketAddress localAddress) {
        }

        @Override
        public SocketAddress localAddress() {
            return new InetSocketAddress(1);
        }

        @Override
        public SocketAddress remoteAddress() {
            return connected ? PEER : null;
        }

        @Override
        public <T> boolean setOption(ChannelOption<T> option, T value) {
            return false;
        }

        @Override
        public <T> T getOption(ChannelOption<T> option) {
            return null;
        }

        @Override
        public SocketAddress receive(ByteBuffer dst) {
            return null;
        }

        @Override
        public boolean send(ByteBuffer src, SocketAddress target) {
            return false;
        }

        @Override
        public void connect(SocketAddress remoteAddress) {
            connectCalls.incrementAndGet();
            Runnable r = duringConnect;
            if (r != null) {
                r.run();
            }
            connected = true;
        }

        @Override
        public void disconnect() {
            connected = false;
        }

        @Override
        public boolean isConnected() {
            return connected;
        }

        @Override
        public void joinGroup(InetAddress group, NetworkInterface networkInterface) throws IOException {
            throw new IOException("not scripted");
        }

        @Override
        public void leaveGroup(InetAddress group, NetworkInterface networkInterface) throws IOException {
            throw new IOException("not scripted");
        }
    }

    /** Keeps an executor busy with a task that waits until closed. */
    private static final class Busy implements AutoCloseable {
        private final CountDownLatch release = new CountDownLatch(1);

        Busy(EventExecutor executor) throws InterruptedException {
            CountDownLatch running = new CountDownLatch(1);
            executor.execute(() -> {
                running.countDown();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            assertTrue(running.await(10, TimeUnit.SECONDS), "the executor did not run the waiting task");
        }

        @Override
        public void close() {
            release.countDown();
        }
    }

    private IoEventLoopGroup group;
    private EventLoop loop;
    private ConnectingSocket socket;
    private IoSocketChannel channel;
    private final List<String> events = Collections.synchronizedList(new ArrayList<>());

    @BeforeEach
    void setUp() throws Exception {
        group = new IoEventLoopGroup(2, null, IdleIoHandler::new);
        loop = group.next();
        socket = new ConnectingSocket();
        channel = new IoSocketChannel("scripted", socket, null, loop);
        channel.config().setOption(ChannelOption.ALLOCATOR, BufferAllocator.unpooled());
        channel.config().setOption(ChannelOption.AUTO_READ, false);
        channel.pipeline().addLast("recorder", new ChannelHandler() {
            @Override
            public void channelActive(ChannelHandlerContext ctx) {
                events.add("active");
                ctx.fireChannelActive();
            }
        });
        channel.register().sync();
    }

    @AfterEach
    void tearDown() throws Exception {
        group.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
    }

    /** Cancels {@code f} from a thread that is not the loop, as an application thread would. */
    private static boolean cancelFromAnotherThread(Future<?> f) {
        AtomicBoolean cancelled = new AtomicBoolean();
        Thread t = new Thread(() -> cancelled.set(f.cancel(false)), "canceller");
        t.start();
        try {
            t.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        assertFalse(t.isAlive(), "the cancelling thread hung");
        return cancelled.get();
    }

    /** Runs an empty task on the loop and waits for it: every task queued before it has run. */
    private void loopRoundTrip() throws Exception {
        loop.submit(() -> { }).sync();
    }

    /**
     * Adds (last) a handler that runs on the group's other loop and passes every connect on, counting them.
     *
     * @return that other loop
     */
    private EventLoop addConnectPasserOnAnotherLoop(String name, AtomicInteger passed) {
        EventLoop other = group.next();
        assertFalse(other == loop, "two loops expected");
        channel.pipeline().addLast(other, name, new ChannelHandler() {
            @Override
            public void connect(ChannelHandlerContext ctx, SocketAddress remote, SocketAddress local,
                    Promise<Void> promise) {
                passed.incrementAndGet();
                ctx.connect(remote, local, promise);
            }
        });
        return other;
    }

    /** The channel closed because its connect was cancelled, and says so to a writer. */
    private void assertClosedByTheCancel() throws Exception {
        assertTrue(channel.closeFuture().await(10, TimeUnit.SECONDS), "a cancelled connect left the channel open");
        assertFalse(channel.isOpen());
        assertFalse(socket.isOpen(), "the socket was not closed");
        Future<Void> w = channel.writeAndFlush(channel.alloc().buffer(1).writeByte(1));
        assertTrue(w.await(10, TimeUnit.SECONDS));
        assertInstanceOf(ChannelClosedException.class, w.cause());
        assertTrue(w.cause().getMessage().contains("the connect was cancelled"), w.cause().getMessage());
        assertEquals(List.of(), events, "a cancelled connect never makes the channel active");
    }

    @Test
    void aConnectThroughThePipelineCancelledBeforeItReachesTheLoopClosesTheChannel() throws Exception {
        Future<Void> connect;
        try (Busy busy = new Busy(loop)) {
            connect = channel.pipeline().connect(PEER); // queued behind the waiting task
            assertTrue(connect.cancel(false), "a connect queued behind a busy loop is still cancellable");
        }
        assertClosedByTheCancel();
        assertTrue(connect.isCancelled());
        assertEquals(0, socket.connectCalls.get(), "the cancelled connect never reached the socket");
    }

    @Test
    void aConnectThroughAHandlerContextCancelledBeforeItReachesTheLoopClosesTheChannel() throws Exception {
        ChannelHandlerContext ctx = channel.pipeline().context("recorder");
        Future<Void> connect;
        try (Busy busy = new Busy(loop)) {
            connect = ctx.connect(PEER, null, channel.newPromise());
            assertTrue(connect.cancel(false));
        }
        assertClosedByTheCancel();
        assertEquals(0, socket.connectCalls.get());
    }

    @Test
    void aConnectStartedByAHandlerAndCancelledByItClosesTheChannel() throws Exception {
        // head, recorder, hop (on the other loop), dialler, tail: the dialler's connect passes the hop's executor
        EventLoop other = addConnectPasserOnAnotherLoop("hop", new AtomicInteger());
        // a handler connecting on its own (e.g. a reconnecting or proxy handler) that gives up before the head
        channel.pipeline().addLast("dialler", new ChannelHandler() {
            @Override
            public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
                Promise<Void> p = ctx.newPromise();
                ctx.connect(PEER, null, p); // waits on the busy executor of "hop"
                p.cancel(false);
            }
        });
        try (Busy busy = new Busy(other)) {
            channel.pipeline().fireUserEventTriggered("dial");
            loopRoundTrip(); // the event ran: the connect waits on the busy executor, its promise cancelled
        }
        assertClosedByTheCancel();
        assertEquals(0, socket.connectCalls.get());
    }

    @Test
    void aConnectCancelledWhileAHandlerExecutorHoldsItClosesTheChannel() throws Exception {
        AtomicInteger passed = new AtomicInteger();
        EventLoop other = addConnectPasserOnAnotherLoop("slow", passed);
        Future<Void> connect;
        try (Busy busy = new Busy(other)) {
            connect = channel.connect(PEER);
            assertTrue(connect.cancel(false));
        }
        assertClosedByTheCancel();
        assertEquals(0, passed.get(), "the cancelled connect stops at the handler's executor");
        assertEquals(0, socket.connectCalls.get());
    }

    @Test
    void aConnectCancelledWhileTheSocketConnectsAtOnceClosesTheChannel() throws Exception {
        socket.connectsAtOnce = true;
        Promise<Void> promise = channel.newPromise();
        AtomicBoolean cancelled = new AtomicBoolean();
        socket.duringConnect = () -> cancelled.set(cancelFromAnotherThread(promise));
        channel.pipeline().connect(PEER, null, promise);
        assertClosedByTheCancel();
        assertTrue(cancelled.get(), "the connect was still cancellable inside the socket's connect");
        assertEquals(1, socket.connectCalls.get());
    }

    @Test
    void aConnectCancelledWhilePendingAtTheSocketClosesTheChannel() throws Exception {
        Future<Void> connect = channel.pipeline().connect(PEER);
        loopRoundTrip(); // the connect reached the socket, which said "in progress"
        assertEquals(1, socket.connectCalls.get());
        assertFalse(connect.isDone());
        assertTrue(cancelFromAnotherThread(connect));
        assertClosedByTheCancel();
    }

    @Test
    void aRedundantConnectCancelledOnItsWayLeavesAConnectedChannelOpen() throws Exception {
        socket.connectsAtOnce = true;
        channel.connect(PEER).sync();
        loopRoundTrip(); // the promise succeeds just before channelActive fires on the loop
        assertEquals(List.of("active"), events);
        Future<Void> again;
        try (Busy busy = new Busy(loop)) {
            again = channel.pipeline().connect(PEER);
            assertTrue(again.cancel(false));
        }
        loopRoundTrip();
        loopRoundTrip(); // the cancel's listener ran (it is queued on the loop)
        assertTrue(channel.isOpen(), "cancelling a connect the core would refuse closed a working connection");
        assertTrue(channel.isActive());
    }

    @Test
    void aBindCancelledOnItsWayBindsNothingAndTheChannelStaysUsable() throws Exception {
        Future<Void> bind;
        try (Busy busy = new Busy(loop)) {
            bind = channel.bind(new InetSocketAddress(0));
            assertTrue(bind.cancel(false));
        }
        loopRoundTrip();
        assertEquals(0, socket.bindCalls.get(), "a cancelled bind never reaches the socket");
        assertTrue(channel.isOpen());
        assertNull(channel.localAddress());
        channel.bind(new InetSocketAddress(0)).sync(); // the user still holds a channel that works
        assertEquals(1, socket.bindCalls.get());
    }

    @Test
    void aBindThatReachedTheSocketCannotBeCancelled() throws Exception {
        Promise<Void> promise = channel.newPromise();
        AtomicBoolean cancelled = new AtomicBoolean(true);
        socket.duringBind = () -> cancelled.set(cancelFromAnotherThread(promise));
        channel.bind(new InetSocketAddress(0), promise).sync();
        assertFalse(cancelled.get(), "cancel must return false once the socket is being bound");
        assertTrue(promise.isSuccess());
        assertTrue(channel.isOpen());
    }

    @Test
    void aCloseCancelledOnItsWayLeavesTheChannelOpenAndOneThatStartedCannotBeCancelled() throws Exception {
        Future<Void> close;
        try (Busy busy = new Busy(loop)) {
            close = channel.close();
            assertTrue(close.cancel(false));
        }
        loopRoundTrip();
        assertTrue(channel.isOpen(), "the cancel returned true: the channel is not closed");
        Promise<Void> promise = channel.newPromise();
        AtomicBoolean cancelled = new AtomicBoolean(true);
        socket.duringClose = () -> cancelled.set(cancelFromAnotherThread(promise));
        channel.close(promise).sync();
        assertFalse(cancelled.get(), "cancel must return false once the channel is closing");
        assertFalse(channel.isOpen());
    }

    @Test
    void aShutdownCancelledBeforeTheLoopRanItLeavesBothDirectionsOpen() throws Exception {
        socket.connectsAtOnce = true;
        channel.connect(PEER).sync();
        Future<Void> output;
        Future<Void> input;
        Future<Void> both;
        try (Busy busy = new Busy(loop)) {
            output = channel.shutdownOutput();
            input = channel.shutdownInput();
            both = channel.shutdown();
            assertTrue(output.cancel(false) && input.cancel(false) && both.cancel(false));
        }
        loopRoundTrip();
        assertFalse(channel.isOutputShutdown(), "a cancelled shutdownOutput did not happen");
        assertFalse(channel.isInputShutdown(), "a cancelled shutdownInput did not happen");
        channel.shutdownOutput().sync(); // and the channel still does what it is asked
        assertTrue(channel.isOutputShutdown());
    }

    @Test
    void aCloseWithACauseCancelledBeforeTheLoopRanItLeavesTheChannelOpen() throws Exception {
        Future<Void> close;
        try (Busy busy = new Busy(loop)) {
            close = channel.close(new IOException("test cause"));
            assertTrue(close.cancel(false));
        }
        loopRoundTrip();
        assertTrue(channel.isOpen());
    }

    @Test
    void aDatagramConnectThatReachedTheSocketCannotBeCancelled() throws Exception {
        ConnectingDatagramSocket ds = new ConnectingDatagramSocket();
        IoDatagramChannel dc = new IoDatagramChannel("scripted", ds, loop);
        dc.config().setOption(ChannelOption.AUTO_READ, false);
        dc.register().sync();
        Future<Void> dropped;
        try (Busy busy = new Busy(loop)) {
            dropped = dc.connect(PEER);
            assertTrue(dropped.cancel(false));
        }
        loopRoundTrip();
        assertEquals(0, ds.connectCalls.get(), "a cancelled datagram connect never reaches the socket");
        assertTrue(dc.isOpen(), "a datagram connect is not a stream's: its cancel leaves the channel as it was");
        assertFalse(dc.isConnected());

        Promise<Void> promise = dc.newPromise();
        AtomicBoolean cancelled = new AtomicBoolean(true);
        ds.duringConnect = () -> cancelled.set(cancelFromAnotherThread(promise));
        dc.connect(PEER, null, promise).sync();
        assertFalse(cancelled.get(), "cancel must return false once the socket is being connected");
        assertTrue(dc.isConnected());
        dc.close().sync();
    }
}
