package io.conduit.testsuite;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.buffer.Buffer;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.DuplexChannel;
import io.conduit.channel.InputShutdownReadCompleteEvent;
import io.conduit.transport.ChannelType;

import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Half-closure ({@code ALLOW_HALF_CLOSURE}) of TCP and Unix-domain sockets, and end-of-stream handling: exactly
 * one {@code InputShutdownEvent} then one {@code InputShutdownReadCompleteEvent}, after all data, with the
 * output still usable and no read spin; with the option off the channel closes; with auto-read off the peer's
 * close is still noticed and every byte before it delivered.
 */
public abstract class HalfClosureTest extends AbstractTransportTest {

    private static final byte[] REPLY = "reply after half-close".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    /** Server child: on input shutdown, writes a reply then shuts its own output down. */
    static final class ReplyOnInputShutdown extends Recorder {
        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
            super.userEventTriggered(ctx, event);
            if (event == InputShutdownReadCompleteEvent.INSTANCE) {
                Buffer b = ctx.alloc().buffer(REPLY.length).writeBytes(REPLY);
                ctx.writeAndFlush(b).addListener(f -> ((DuplexChannel) ctx.channel()).shutdownOutput());
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void tcpHalfClosureWithAutoRead(Combo combo) throws Exception {
        halfClosure(combo, ChannelType.TCP, true);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void tcpHalfClosureWithoutAutoRead(Combo combo) throws Exception {
        halfClosure(combo, ChannelType.TCP, false);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void unixHalfClosureWithAutoRead(Combo combo) throws Exception {
        halfClosure(combo, ChannelType.UNIX_STREAM, true);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void unixHalfClosureWithoutAutoRead(Combo combo) throws Exception {
        halfClosure(combo, ChannelType.UNIX_STREAM, false);
    }

    private void halfClosure(Combo combo, ChannelType type, boolean autoRead) throws Exception {
        if (!runnable(combo, type)) {
            return;
        }
        ReplyOnInputShutdown serverChild = new ReplyOnInputShutdown();
        Channel server = bindServer(combo, type, serverAddress(type), serverChild,
                b -> b.childOption(ChannelOption.ALLOW_HALF_CLOSURE, true).childOption(ChannelOption.AUTO_READ, autoRead));
        Recorder client = new Recorder();
        Channel ch = null;
        try {
            ch = connect(combo, type, server.localAddress(), client, b -> b.option(ChannelOption.ALLOW_HALF_CLOSURE, true));
            byte[] data = randomBytes(3000, 7);
            await(ch.writeAndFlush(ch.alloc().buffer(data.length).writeBytes(data)));
            await(((DuplexChannel) ch).shutdownOutput());
            eventually("InputShutdownReadCompleteEvent on the server child",
                    () -> serverChild.count("user:InputShutdownReadCompleteEvent") == 1);
            eventually("the reply and the server's end-of-stream at the client",
                    () -> client.count("user:InputShutdownEvent") == 1);
            Thread.sleep(200); // a read spin or a duplicate event would show up here
            List<String> ev = serverChild.events();
            assertArrayEquals(data, serverChild.bytes(), "every byte before the half-close");
            assertEquals(1, serverChild.count("user:InputShutdownEvent"), ev.toString());
            assertEquals(1, serverChild.count("user:InputShutdownReadCompleteEvent"), ev.toString());
            int shutdownAt = ev.indexOf("user:InputShutdownEvent");
            assertEquals(shutdownAt + 1, ev.indexOf("user:InputShutdownReadCompleteEvent"), ev.toString());
            assertTrue(ev.lastIndexOf("read") < shutdownAt, "all data before InputShutdownEvent: " + ev);
            assertEquals(ev.size() - 1, ev.indexOf("user:InputShutdownReadCompleteEvent"),
                    "nothing after InputShutdownReadCompleteEvent (no read spin): " + ev);
            assertTrue(serverChild.channel().isOpen(), "the half-closed server child stays open");
            assertTrue(((DuplexChannel) serverChild.channel()).isInputShutdown());
            assertArrayEquals(REPLY, client.bytes(), "the output of the half-closed side stayed usable");
            assertEquals(1, client.count("user:InputShutdownReadCompleteEvent"), client.events().toString());
        } finally {
            closeAll(ch, server);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void endOfStreamClosesTheChannelWhenHalfClosureIsOff(Combo combo) throws Exception {
        if (!runnable(combo)) {
            return;
        }
        for (ChannelType type : new ChannelType[] {ChannelType.TCP, ChannelType.UNIX_STREAM}) {
            if (!offers(combo, type)) {
                continue;
            }
            Recorder serverChild = new Recorder();
            Channel server = bindServer(combo, type, serverAddress(type), serverChild, null);
            Channel ch = null;
            try {
                ch = connect(combo, type, server.localAddress(), new Recorder(), null);
                await(ch.writeAndFlush(ch.alloc().buffer(5).writeBytes(new byte[] {1, 2, 3, 4, 5})));
                await(((DuplexChannel) ch).shutdownOutput());
                await(serverChild.inactive, type + " server child inactive after the peer's end-of-stream");
                assertFalse(serverChild.channel().isOpen());
                assertArrayEquals(new byte[] {1, 2, 3, 4, 5}, serverChild.bytes());
                assertEquals(0, serverChild.count(e -> e.startsWith("user:")), serverChild.events().toString());
                assertEquals(1, serverChild.count("inactive"));
            } finally {
                closeAll(ch, server);
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void peerCloseIsNoticedWithAutoReadOffAndEveryByteIsDelivered(Combo combo) {
        if (!runnable(combo)) {
            return;
        }
        Recorder serverChild = new Recorder();
        Channel server = bindServer(combo, ChannelType.TCP, loopback(), serverChild,
                b -> b.childOption(ChannelOption.AUTO_READ, false));
        Channel ch = null;
        try {
            ch = connect(combo, ChannelType.TCP, server.localAddress(), new Recorder(), null);
            byte[] data = randomBytes(1000, 3);
            await(ch.writeAndFlush(ch.alloc().buffer(data.length).writeBytes(data)));
            await(ch.close());
            await(serverChild.inactive, "inactive of a server child that never called read()");
            List<String> ev = serverChild.events();
            assertArrayEquals(data, serverChild.bytes(), "all bytes readable: " + ev);
            assertTrue(ev.lastIndexOf("read") < ev.indexOf("inactive"), ev.toString());
            assertEquals(1, serverChild.count("inactive"));
        } finally {
            closeAll(ch, server);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void dataAndCloseTogetherDeliverAllDataBeforeInactiveWithoutSpinning(Combo combo) throws Exception {
        if (!runnable(combo)) {
            return;
        }
        Recorder serverChild = new Recorder();
        Channel server = bindServer(combo, ChannelType.TCP, loopback(), serverChild, null);
        Channel ch = null;
        try {
            ch = connect(combo, ChannelType.TCP, server.localAddress(), new Recorder(), null);
            int size = combo.allocator() == AllocatorKind.ONE_BYTE_READS ? 2000 : 100_000;
            byte[] data = randomBytes(size, 11);
            await(ch.writeAndFlush(ch.alloc().buffer(size).writeBytes(data))); // the socket accepted it all
            ch.close(); // at once: data and FIN reach the peer together
            await(serverChild.inactive, "inactive after data+close");
            Thread.sleep(100);
            List<String> ev = serverChild.events();
            assertArrayEquals(data, serverChild.bytes());
            assertEquals(ev.size() - 1, ev.indexOf("inactive"), "nothing after inactive: " + ev);
            long reads = serverChild.count("read");
            long completes = serverChild.count("readComplete");
            assertTrue(completes <= reads, "no empty read operations (spin): " + completes + " readComplete for "
                    + reads + " reads");
        } finally {
            closeAll(ch, server);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void explicitShutdownsFireOnceAndFailUnflushedWrites(Combo combo) throws Exception {
        if (!runnable(combo)) {
            return;
        }
        Recorder serverChild = new Recorder();
        Channel server = bindServer(combo, ChannelType.TCP, loopback(), serverChild,
                b -> b.childOption(ChannelOption.ALLOW_HALF_CLOSURE, true));
        Recorder client = new Recorder();
        Channel ch = null;
        try {
            ch = connect(combo, ChannelType.TCP, server.localAddress(), client, null);
            DuplexChannel duplex = (DuplexChannel) ch;
            await(duplex.shutdownInput());
            await(duplex.shutdownInput()); // again: no second event
            assertTrue(duplex.isInputShutdown());
            assertEquals(1, client.count("user:InputShutdownEvent"), client.events().toString());
            assertEquals(1, client.count("user:InputShutdownReadCompleteEvent"), client.events().toString());

            io.conduit.concurrent.Future<Void> flushed = ch.writeAndFlush(ch.alloc().buffer(4).writeInt(7));
            io.conduit.concurrent.Future<Void> unflushed = ch.write(ch.alloc().buffer(4).writeInt(8));
            await(duplex.shutdownOutput());
            await(flushed);
            Throwable cause = awaitDone(unflushed);
            assertTrue(cause instanceof io.conduit.channel.ChannelClosedException, String.valueOf(cause));
            assertTrue(duplex.isOutputShutdown() && duplex.isShutdown());
            assertTrue(awaitDone(ch.writeAndFlush(ch.alloc().buffer(1).writeByte(1))) != null,
                    "a write after shutdownOutput fails");
            eventually("the peer saw the data then end-of-stream",
                    () -> serverChild.count("user:InputShutdownEvent") == 1 && serverChild.byteCount() == 4);
            assertTrue(ch.isOpen(), "both directions shut down, the channel stays open until closed");
        } finally {
            closeAll(ch, server);
        }
    }
}
