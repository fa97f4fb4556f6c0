package io.conduit.internal.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;

import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.ChannelInitializer;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.ChannelPipeline;
import io.conduit.channel.embedded.EmbeddedChannel;
import io.conduit.concurrent.Future;
import io.conduit.concurrent.Promise;
import io.conduit.concurrent.EventExecutors;
import io.conduit.concurrent.EventLoop;
import io.conduit.concurrent.EventLoopGroup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class DefaultChannelPipelineTest {

    /** Records every inbound event and message it sees, and forwards it. */
    static class Recorder implements ChannelHandler {
        final List<Object> events = new ArrayList<>();
        int added;
        int removed;

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            added++;
        }

        @Override
        public void handlerRemoved(ChannelHandlerContext ctx) {
            removed++;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            events.add(msg);
            ctx.fireChannelRead(msg);
        }
    }

    static final class Plain implements ChannelHandler {
    }

    @ChannelHandler.Sharable
    static final class Shared implements ChannelHandler {
    }

    @Test
    void generatedNamesAreSharedStringsAcrossPipelinesAndKeepCountingPastTheSharedOnes() {
        EmbeddedChannel a = new EmbeddedChannel(new Plain());
        EmbeddedChannel b = new EmbeddedChannel(new Plain(), new Plain(), new Plain(), new Plain(), new Plain(),
                new Plain());
        assertSame(a.pipeline().names().get(0), b.pipeline().names().get(0), "one 'Plain#0' for every pipeline");
        assertEquals(List.of("Plain#0", "Plain#1", "Plain#2", "Plain#3", "Plain#4", "Plain#5"), b.pipeline().names());
        b.pipeline().remove("Plain#4");
        b.pipeline().addLast(new Plain());
        assertEquals(List.of("Plain#0", "Plain#1", "Plain#2", "Plain#3", "Plain#5", "Plain#4"), b.pipeline().names());
    }

    @Test
    void aContextKnowsWhetherItWasRemovedOrReplaced() {
        Plain first = new Plain();
        Plain second = new Plain();
        EmbeddedChannel ch = new EmbeddedChannel(first, second);
        ChannelHandlerContext removed = ch.pipeline().context(first);
        ChannelHandlerContext replaced = ch.pipeline().context(second);
        assertFalse(removed.isRemoved());
        ch.pipeline().remove(first);
        assertTrue(removed.isRemoved());
        ch.pipeline().replace("Plain#1", "again", new Recorder());
        assertTrue(replaced.isRemoved());
        assertFalse(ch.pipeline().context("again").isRemoved());
        assertEquals(List.of("again"), ch.pipeline().names());
    }

    @Test
    void generatedNamesUseTheSimpleClassNameAndACounterAndHeadAndTailAreNotListed() {
        EmbeddedChannel ch = new EmbeddedChannel(new Plain(), new Plain(), new Recorder());
        ChannelPipeline p = ch.pipeline();
        assertEquals(List.of("Plain#0", "Plain#1", "Recorder#0"), p.names());
        List<String> iterated = new ArrayList<>();
        for (Map.Entry<String, ChannelHandler> e : p) {
            iterated.add(e.getKey());
        }
        assertEquals(p.names(), iterated);
        p.remove("Plain#0");
        p.addFirst(null, new Plain());
        assertEquals(List.of("Plain#0", "Plain#1", "Recorder#0"), p.names());
        assertInstanceOf(Plain.class, p.first());
        assertInstanceOf(Recorder.class, p.last());
        assertThrows(NoSuchElementException.class, () -> p.remove("head"));
        assertThrows(NoSuchElementException.class, () -> p.remove("tail"));
        assertNull(p.get("head"));
        assertNull(p.context("tail"));
    }

    @Test
    void emptyPipelineHasNoFirstOrLast() {
        EmbeddedChannel ch = new EmbeddedChannel();
        assertNull(ch.pipeline().first());
        assertNull(ch.pipeline().last());
        assertEquals(List.of(), ch.pipeline().names());
    }

    @Test
    void duplicateNamesAndUnknownNamesAreRejectedWithTheName() {
        EmbeddedChannel ch = new EmbeddedChannel();
        ChannelPipeline p = ch.pipeline();
        p.addLast("codec", new Plain());
        IllegalArgumentException dup = assertThrows(IllegalArgumentException.class, () -> p.addLast("codec", new Plain()));
        assertTrue(dup.getMessage().contains("codec"), dup.getMessage());
        NoSuchElementException unknown = assertThrows(NoSuchElementException.class, () -> p.remove("nope"));
        assertTrue(unknown.getMessage().contains("nope"), unknown.getMessage());
        assertThrows(NoSuchElementException.class, () -> p.addBefore("missing", "x", new Plain()));
        assertThrows(NoSuchElementException.class, () -> p.remove(new Plain()));
        assertEquals(List.of("codec"), p.names());
    }

    @Test
    void nonSharableHandlerCannotBeInTwoPipelinesButSharableCan() {
        Plain plain = new Plain();
        new EmbeddedChannel(plain);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new EmbeddedChannel(plain));
        assertTrue(e.getMessage().contains(Plain.class.getName()), e.getMessage());

        Shared shared = new Shared();
        EmbeddedChannel a = new EmbeddedChannel(shared);
        EmbeddedChannel b = new EmbeddedChannel(shared);
        assertSame(shared, a.pipeline().first());
        assertSame(shared, b.pipeline().first());

        Plain movable = new Plain();
        EmbeddedChannel c = new EmbeddedChannel(movable);
        c.pipeline().remove(movable);
        new EmbeddedChannel(movable); // removed handlers may be added again
    }

    @Test
    void handlerAddedAndRemovedRunOnceAndContextKnowsItIsRemoved() {
        Recorder r = new Recorder();
        EmbeddedChannel ch = new EmbeddedChannel(r);
        ChannelHandlerContext ctx = ch.pipeline().context(r);
        assertEquals(1, r.added);
        assertFalse(ctx.isRemoved());
        assertSame(r, ch.pipeline().remove("Recorder#0"));
        assertEquals(1, r.removed);
        assertTrue(ctx.isRemoved());
        ch.writeInbound("after");
        assertEquals(List.of(), r.events, "a removed handler sees no events");
        assertEquals("after", ch.readInbound());
    }

    @Test
    void aHandlerRemovingItselfStillForwardsTheEventInFlight() {
        ChannelHandler once = new ChannelHandler() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ctx.pipeline().remove(this);
                ctx.fireChannelRead("seen:" + msg);
            }
        };
        EmbeddedChannel ch = new EmbeddedChannel(once, new Recorder());
        ch.writeInbound("a", "b");
        assertEquals("seen:a", ch.readInbound());
        assertEquals("b", ch.readInbound());
        assertEquals(List.of("Recorder#0"), ch.pipeline().names());
    }

    @Test
    void replaceSwapsTheHandlerInPlace() {
        Recorder first = new Recorder();
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.pipeline().addLast("a", new Plain()).addLast("x", first).addLast("z", new Plain());
        ch.writeInbound(1);
        Recorder second = new Recorder();
        assertSame(first, ch.pipeline().replace("x", "y", second));
        assertEquals(List.of("a", "y", "z"), ch.pipeline().names());
        ch.writeInbound(2);
        assertEquals(List.of(1), first.events);
        assertEquals(List.of(2), second.events);
        assertEquals(1, first.removed);
        assertEquals(1, second.added);
        ch.pipeline().replace("y", "y", new Recorder()); // same name is allowed
    }

    @Test
    void addBeforeAndAfterPlaceHandlersRelativeToTheBase() {
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.pipeline().addLast("m", new Plain());
        ch.pipeline().addBefore("m", "b", new Plain());
        ch.pipeline().addAfter("m", "a", new Plain());
        ch.pipeline().addFirst("f", new Plain());
        assertEquals(List.of("f", "b", "m", "a"), ch.pipeline().names());
        assertInstanceOf(Plain.class, ch.pipeline().get(Plain.class));
        assertNull(ch.pipeline().get(Recorder.class));
    }

    @Test
    void autoReadRequestsAReadAfterActiveAndAfterEachReadComplete() {
        EmbeddedChannel ch = new EmbeddedChannel(new Plain());
        assertEquals(1, ch.readRequests(), "channelActive starts reading");
        ch.writeInbound("x");
        assertEquals(2, ch.readRequests(), "channelReadComplete keeps reading");
        ch.config().setAutoRead(false);
        ch.writeInbound("y");
        assertEquals(2, ch.readRequests(), "no read without auto-read");
        ch.config().setAutoRead(true);
        assertEquals(3, ch.readRequests(), "turning auto-read on starts a read");
        ch.read();
        assertEquals(4, ch.readRequests());
    }

    @Test
    void tailReleasesUnhandledMessagesAndReferenceCountedUserEvents() throws Exception {
        try (EventLoopGroup loops = EventExecutors.newGroup(1, "loop")) {
            EventLoop loop = loops.next();
            TestChannel ch = new TestChannel(loop);
            TestMessage msg = new TestMessage("unhandled");
            TestMessage event = new TestMessage("event");
            ch.pipeline.fireChannelRead(msg).fireUserEventTriggered(event)
                    .fireExceptionCaught(new IllegalStateException("expected in this test: logged by the tail"));
            loop.submit(() -> { }).sync();
            assertEquals(0, msg.refCnt());
            assertEquals(0, event.refCnt());
        }
    }

    @Test
    void inboundExceptionGoesToTheSameHandlersExceptionCaught() {
        List<Throwable> caught = new ArrayList<>();
        ChannelHandler thrower = new ChannelHandler() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                throw new IllegalArgumentException("bad " + msg);
            }

            @Override
            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                caught.add(cause);
            }
        };
        EmbeddedChannel ch = new EmbeddedChannel(thrower);
        assertFalse(ch.writeInbound("m"));
        assertEquals(1, caught.size());
        assertEquals("bad m", caught.get(0).getMessage());
        ch.checkException(); // handled: nothing reached the tail
    }

    @Test
    void unhandledExceptionReachesTheTailAndCheckExceptionRethrowsItOnce() {
        ChannelHandler thrower = new ChannelHandler() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                throw new IllegalStateException("boom");
            }
        };
        EmbeddedChannel ch = new EmbeddedChannel(thrower);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> ch.writeInbound("m"));
        assertEquals("boom", e.getMessage());
        ch.checkException();
    }

    @Test
    void outboundExceptionFailsThePromiseAndReleasesTheMessage() {
        ChannelHandler thrower = new ChannelHandler() {
            @Override
            public void write(ChannelHandlerContext ctx, Object msg, Promise<Void> promise) {
                throw new IllegalStateException("cannot encode");
            }
        };
        EmbeddedChannel ch = new EmbeddedChannel(thrower);
        TestMessage msg = new TestMessage("w");
        Future<Void> f = ch.writeAndFlush(msg);
        assertTrue(f.isDone());
        assertEquals("cannot encode", f.cause().getMessage());
        assertEquals(0, msg.refCnt());
        assertNull(ch.readOutbound());
    }

    @Test
    void writeWithAnAlreadyCancelledPromiseStopsQuietlyAndReleasesTheMessage() {
        EmbeddedChannel ch = new EmbeddedChannel(new Plain());
        Promise<Void> promise = ch.newPromise();
        assertTrue(promise.cancel(false));
        TestMessage msg = new TestMessage("c");
        ch.writeAndFlush(msg, promise);
        ch.checkException();
        assertEquals(0, msg.refCnt());
        assertNull(ch.readOutbound());
        Promise<Void> closePromise = ch.newPromise();
        closePromise.cancel(false);
        ch.close(closePromise);
        assertTrue(ch.isOpen(), "a cancelled close does nothing");
    }

    @Test
    void cancellingMidPropagationStopsAtTheNextHandlerAndReleasesTheMessage() {
        ChannelHandler canceller = new ChannelHandler() {
            @Override
            public void write(ChannelHandlerContext ctx, Object msg, Promise<Void> promise) {
                promise.cancel(false);
                ctx.write(msg, promise);
            }
        };
        List<Object> seenNearHead = new ArrayList<>();
        ChannelHandler nearHead = new ChannelHandler() {
            @Override
            public void write(ChannelHandlerContext ctx, Object msg, Promise<Void> promise) {
                seenNearHead.add(msg);
                ctx.write(msg, promise);
            }
        };
        EmbeddedChannel ch = new EmbeddedChannel(nearHead, canceller);
        TestMessage msg = new TestMessage("mid");
        Future<Void> f = ch.writeAndFlush(msg);
        assertTrue(f.isCancelled());
        assertEquals(0, msg.refCnt());
        assertEquals(List.of(), seenNearHead);
        assertNull(ch.readOutbound());
        ch.checkException();
    }

    @Test
    void cancellingAWriteQueuedOnTheLoopStopsItBeforeTheHead() throws Exception {
        EmbeddedChannel ch = new EmbeddedChannel(new Plain());
        TestMessage msg = new TestMessage("queued");
        Promise<Void> promise = ch.newPromise();
        Thread writer = new Thread(() -> ch.writeAndFlush(msg, promise)); // not the loop: the write is queued
        writer.start();
        writer.join(5_000);
        assertTrue(promise.cancel(false));
        ch.runPendingTasks();
        assertEquals(0, msg.refCnt());
        assertNull(ch.readOutbound());
    }

    @Test
    void channelInitializerAddsHandlersAndRemovesItself() {
        Recorder added = new Recorder();
        EmbeddedChannel ch = new EmbeddedChannel(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel channel) {
                channel.pipeline().addLast("added", added);
            }
        });
        assertEquals(List.of("added"), ch.pipeline().names());
        ch.writeInbound("hello");
        assertEquals(List.of("hello"), added.events);
        assertEquals("hello", ch.readInbound());
    }

    @Test
    void channelInitializerAddedToARegisteredChannelInitializesAtOnce() {
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.pipeline().addLast("init", new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel channel) {
                channel.pipeline().addLast("late", new Plain());
            }
        });
        assertEquals(List.of("late"), ch.pipeline().names());
    }

    @Test
    void handlerAddedThatThrowsRemovesTheHandlerAndReportsIt() {
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.pipeline().addLast("bad", new ChannelHandler() {
            @Override
            public void handlerAdded(ChannelHandlerContext ctx) {
                throw new IllegalStateException("no");
            }
        });
        assertEquals(List.of(), ch.pipeline().names());
        IllegalStateException e = assertThrows(IllegalStateException.class, ch::checkException);
        assertTrue(e.getMessage().contains("bad"), e.getMessage());
    }

    @Test
    void outboundOperationsReachTheHeadInOrder() throws Exception {
        try (EventLoopGroup loops = EventExecutors.newGroup(1, "loop")) {
            EventLoop loop = loops.next();
            TestChannel ch = new TestChannel(loop);
            ch.pipeline.addLast(new Plain());
            ch.bind(new java.net.InetSocketAddress(0)).sync();
            ch.connect(new java.net.InetSocketAddress(1)).sync();
            ch.writeAndFlush("m").sync();
            ch.disconnect().sync();
            ch.close().sync();
            assertEquals(List.of("bind", "connect", "disconnect", "close"), ch.io.ops);
            assertEquals(List.of("m"), ch.io.written);
            assertEquals(1, ch.io.flushes.get());
            assertEquals(List.of(TestChannel.threadOf(loop)), ch.io.threads, "the head performs I/O on the channel's loop");
        }
    }

    @Test
    void masksMarkOnlyOverriddenMethods() {
        assertEquals(0, HandlerMasks.mask(Plain.class));
        assertEquals(HandlerMasks.CHANNEL_READ, HandlerMasks.mask(Recorder.class));
        assertEquals(HandlerMasks.ALL_INBOUND & ~HandlerMasks.EXCEPTION_CAUGHT & ~HandlerMasks.CHANNEL_READ
                & ~HandlerMasks.USER_EVENT & ~HandlerMasks.READ_COMPLETE & ~HandlerMasks.WRITABILITY_CHANGED
                & ~HandlerMasks.ACTIVE & ~HandlerMasks.INACTIVE & ~HandlerMasks.UNREGISTERED,
                HandlerMasks.mask(ChannelInitializer.class));
    }

    @Test
    void configValidatesOptionsAndDefaultsAutoReadOn() {
        EmbeddedChannel ch = new EmbeddedChannel();
        assertTrue(ch.config().isAutoRead());
        assertEquals(16, ch.config().getOption(ChannelOption.WRITE_SPIN_COUNT));
        assertThrows(IllegalArgumentException.class, () -> ch.config().setOption(ChannelOption.WRITE_SPIN_COUNT, 0));
        assertTrue(ch.config().setOption(ChannelOption.CONNECT_TIMEOUT_MILLIS, 5));
        assertEquals(5, ch.config().getOption(ChannelOption.CONNECT_TIMEOUT_MILLIS));
        assertFalse(ch.config().setOption(ChannelOption.TCP_CORK, true), "not an option of this channel");
        assertNull(ch.config().getOption(ChannelOption.TCP_CORK));
        assertEquals(5, ch.config().getOptions().get(ChannelOption.CONNECT_TIMEOUT_MILLIS));
    }

    @Test
    void beforeTheChannelHasALoopHandlerCallbacksAndEventsRunOnTheCallingThread() {
        TestChannel ch = new TestChannel(null);
        ch.registered = false;
        Recorder r = new Recorder();
        ch.pipeline.addLast("r", r);
        assertEquals(1, r.added);
        ch.pipeline.fireChannelRead("early");
        assertEquals(List.of("early"), r.events);
        ch.pipeline.remove("r");
        assertEquals(1, r.removed);
    }

    @Test
    void eventsFiredFromAnotherThreadAreHandedToTheChannelsLoop() throws Exception {
        EmbeddedChannel ch = new EmbeddedChannel(new Recorder());
        Thread other = new Thread(() -> ch.pipeline().fireChannelRead("from elsewhere"));
        other.start();
        other.join(5_000);
        assertNull(ch.readInbound(), "nothing runs before the loop runs its tasks");
        ch.runPendingTasks();
        assertEquals("from elsewhere", ch.readInbound());
    }
}
