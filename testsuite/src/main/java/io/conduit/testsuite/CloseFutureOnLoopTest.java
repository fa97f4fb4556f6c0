package io.conduit.testsuite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.buffer.Buffer;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.concurrent.BlockingOperationException;
import io.conduit.transport.ChannelType;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Waiting for a channel's close future on the channel's own event loop ({@code sync()}, {@code await(timeout)},
 * {@code get()} from inside a handler) throws {@link BlockingOperationException} at once instead of dead-locking
 * the loop; the loop and every other channel on it keep working.
 */
public abstract class CloseFutureOnLoopTest extends AbstractTransportTest {

    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void waitingForTheCloseFutureOnItsOwnLoopThrowsAndTheLoopKeepsWorking(Combo combo) throws Exception {
        if (!runnable(combo)) {
            return;
        }
        List<String> outcomes = new CopyOnWriteArrayList<>();
        Channel server = bindServer(combo, ChannelType.TCP, loopback(), new BlockingThenEcho(outcomes), null);
        Channel[] clients = new Channel[3];
        try {
            for (int i = 0; i < clients.length; i++) {
                Recorder r = new Recorder();
                clients[i] = connect(combo, ChannelType.TCP, server.localAddress(), r, null);
                byte[] ping = ("ping " + i).getBytes(StandardCharsets.US_ASCII);
                await(clients[i].writeAndFlush(clients[i].alloc().buffer(ping.length).writeBytes(ping)));
                int expected = ping.length;
                eventually("echo on connection " + i + " (outcomes so far: " + outcomes + ")",
                        () -> r.byteCount() >= expected);
                assertEquals("ping " + i, new String(r.bytes(), StandardCharsets.US_ASCII));
            }
            assertEquals(3 * clients.length, outcomes.size(), "three waits per connection: " + outcomes);
            for (String o : outcomes) {
                assertTrue(o.startsWith("BlockingOperationException in "), o);
                long millis = Long.parseLong(o.substring(o.lastIndexOf(' ') + 1, o.length() - 2));
                // below the 2 s of the timed wait, with room for a loaded machine: a wait that did not throw
                // would block (sync, get) or return false after 2 s (await)
                assertTrue(millis < 1_500, "thrown at once, not after waiting: " + o);
            }
        } finally {
            closeAll(clients);
            closeAll(server);
        }
    }

    /** In channelRead: waits for the close future three ways (each must throw), then echoes. */
    @ChannelHandler.Sharable
    static final class BlockingThenEcho implements ChannelHandler {
        private final List<String> outcomes;

        BlockingThenEcho(List<String> outcomes) {
            this.outcomes = outcomes;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            Buffer b = (Buffer) msg;
            attempt("sync", () -> ctx.channel().closeFuture().sync());
            attempt("await", () -> ctx.channel().closeFuture().await(2, TimeUnit.SECONDS));
            attempt("get", () -> ctx.channel().closeFuture().get());
            ctx.writeAndFlush(b);
        }

        private interface Wait {
            Object run() throws Exception;
        }

        private void attempt(String how, Wait wait) {
            long start = System.nanoTime();
            String outcome;
            try {
                outcome = "returned " + wait.run();
            } catch (BlockingOperationException e) {
                outcome = "BlockingOperationException";
            } catch (Exception e) {
                outcome = e.toString();
            }
            outcomes.add(outcome + " in " + how + " after " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)
                    + "ms");
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }
}
