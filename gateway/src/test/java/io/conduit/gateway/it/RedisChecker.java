package io.conduit.gateway.it;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A redis client of the tests on one connection that stays open: pipelines {@code SET key value} / {@code GET key}
 * batches with distinct values and checks every reply byte for byte, until closed. The constructor makes one checked
 * round trip first, so a new instance proves that a new connection is served.
 */
final class RedisChecker implements AutoCloseable {

    private static final int BATCH = 16;

    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;
    private final Thread thread;
    private final AtomicLong replies = new AtomicLong();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile boolean stop;
    private long next; // the checker thread's (after the constructor's round trip)

    RedisChecker(int port) throws IOException {
        socket = new Socket();
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5000);
        socket.setSoTimeout(20_000);
        socket.setTcpNoDelay(true);
        out = socket.getOutputStream();
        in = new BufferedInputStream(socket.getInputStream());
        roundTrip(1);
        thread = new Thread(() -> {
            try {
                while (!stop) {
                    roundTrip(BATCH);
                }
            } catch (Throwable t) {
                if (!stop) {
                    failure.compareAndSet(null, t);
                }
            }
        }, "it-redis-checker");
        thread.setDaemon(true);
        thread.start();
    }

    /** Sends {@code n} SET and {@code n} GET of fresh keys in one write, then checks the {@code 2n} replies. */
    private void roundTrip(int n) throws IOException {
        long first = next;
        next += n;
        StringBuilder b = new StringBuilder();
        for (long i = first; i < first + n; i++) {
            command(b, "SET", key(i), value(i));
        }
        for (long i = first; i < first + n; i++) {
            command(b, "GET", key(i));
        }
        out.write(b.toString().getBytes(StandardCharsets.UTF_8));
        out.flush();
        for (long i = first; i < first + n; i++) {
            expect("+OK", "SET " + key(i));
            replies.incrementAndGet();
        }
        for (long i = first; i < first + n; i++) {
            String v = value(i);
            expect("$" + v.length(), "GET " + key(i));
            expect(v, "GET " + key(i));
            replies.incrementAndGet();
        }
    }

    private String key(long i) {
        return "conduit-it:" + System.identityHashCode(this) + ":" + i;
    }

    private static String value(long i) {
        return "value-" + i + "-" + Long.toHexString(i * 0x9E3779B97F4A7C15L);
    }

    private static void command(StringBuilder b, String... parts) {
        b.append('*').append(parts.length).append("\r\n");
        for (String p : parts) {
            b.append('$').append(p.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(p).append("\r\n");
        }
    }

    private void expect(String line, String what) throws IOException {
        StringBuilder got = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0 && c != '\n') {
            got.append((char) c);
        }
        if (c < 0) {
            throw new IOException("the connection closed before the reply to " + what + " (after " + replies.get()
                    + " replies)");
        }
        String text = got.toString().replace("\r", "");
        if (!text.equals(line)) {
            throw new AssertionError("reply to " + what + ": expected '" + line + "', got '" + text + "'");
        }
    }

    long replies() {
        return replies.get();
    }

    /** Waits (at most 30 s) until {@code count} replies were checked; fails on the first error. */
    void awaitReplies(long count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (replies.get() < count) {
            assertNoErrors();
            if (System.nanoTime() > deadline) {
                throw new AssertionError("only " + replies.get() + " of " + count + " replies within 30 s");
            }
            Thread.sleep(10);
        }
        assertNoErrors();
    }

    void assertNoErrors() {
        Throwable t = failure.get();
        if (t != null) {
            throw new AssertionError("the redis connection kept across the swaps failed after " + replies.get()
                    + " correct replies: " + t, t);
        }
    }

    @Override
    public void close() throws IOException, InterruptedException {
        stop = true;
        if (thread != null) {
            thread.join(TimeUnit.SECONDS.toMillis(25));
        }
        socket.close();
    }
}
