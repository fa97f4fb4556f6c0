package io.conduit.testsuite;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.ChannelInitializer;
import io.conduit.channel.ChannelOption;
import io.conduit.transport.ChannelType;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Many connections accepted with {@code AUTO_READ} off (the channel core reads ahead and holds the input), whose
 * auto-read is turned on after a random short delay — from the channel's event loop for half of them, from another
 * thread for the others — followed by a {@code read()}, while the clients send in several bursts before and after
 * the flip: every byte arrives, in order, on every connection.
 */
public abstract class LateAutoReadTest extends AbstractTransportTest {

    private static final int CONNECTIONS = 50;
    private static final int BURSTS = 6;
    private static final int BURST_BYTES = 700;

    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void autoReadTurnedOnLateFromTheLoopOrAnotherThreadLosesNoInput(Combo combo) throws Exception {
        if (!runnable(combo)) {
            return;
        }
        ScheduledExecutorService other = Executors.newSingleThreadScheduledExecutor();
        Queue<Recorder> children = new ConcurrentLinkedQueue<>();
        Random random = new Random(42);
        Channel server = bindServer(combo, ChannelType.TCP, loopback(), new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                Recorder r = new Recorder() {
                    @Override
                    public void channelActive(ChannelHandlerContext ctx) {
                        super.channelActive(ctx);
                        int delayMillis;
                        boolean fromLoop;
                        synchronized (random) {
                            delayMillis = random.nextInt(40);
                            fromLoop = random.nextBoolean();
                        }
                        Runnable flip = () -> {
                            ch.config().setAutoRead(true);
                            ch.read();
                        };
                        if (fromLoop) {
                            ch.eventLoop().schedule(flip, delayMillis, TimeUnit.MILLISECONDS);
                        } else {
                            other.schedule(flip, delayMillis, TimeUnit.MILLISECONDS);
                        }
                    }
                };
                children.add(r);
                ch.pipeline().addLast(r);
            }
        }, b -> b.childOption(ChannelOption.AUTO_READ, false));
        List<Channel> clients = new ArrayList<>();
        List<byte[]> payloads = new ArrayList<>();
        try {
            for (int i = 0; i < CONNECTIONS; i++) {
                byte[] p = randomBytes(BURSTS * BURST_BYTES, 1000 + i);
                ByteBuffer.wrap(p).putInt(i); // the first burst names the connection
                payloads.add(p);
                clients.add(connect(combo, ChannelType.TCP, server.localAddress(), new Recorder(), null));
            }
            for (int burst = 0; burst < BURSTS; burst++) {
                for (int i = 0; i < CONNECTIONS; i++) {
                    Channel c = clients.get(i);
                    c.writeAndFlush(c.alloc().buffer(BURST_BYTES).writeBytes(payloads.get(i), burst * BURST_BYTES,
                            BURST_BYTES));
                }
                Thread.sleep(10); // bursts straddle the flips (0-40 ms after accepting)
            }
            int expected = BURSTS * BURST_BYTES;
            eventually("every connection read all " + expected + " bytes; got "
                    + children.stream().map(Recorder::byteCount).toList(),
                    () -> children.size() == CONNECTIONS && children.stream().allMatch(r -> r.byteCount() >= expected));
            for (Recorder r : children) {
                byte[] got = r.bytes();
                int index = ByteBuffer.wrap(got).getInt();
                if (index < 0 || index >= CONNECTIONS) {
                    fail("a connection's input does not start with its first burst (reordered or lost): "
                            + r.events());
                }
                assertEquals(expected, got.length, "connection " + index);
                assertArrayEquals(payloads.get(index), got, "connection " + index + ": bytes in order, none lost"
                        + " (first difference at " + firstDifference(payloads.get(index), got) + ")");
            }
        } finally {
            other.shutdownNow();
            closeAll(clients.toArray(new Channel[0]));
            closeAll(server);
        }
    }

    private static int firstDifference(byte[] a, byte[] b) {
        int n = Arrays.mismatch(a, b);
        return n;
    }
}
