package io.conduit.itest;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Plain {@code java.net} clients outside Conduit that load an echo server while its transport churns, as an operator's
 * clients would: short connections (connect, write {@link #EXCHANGE_BYTES} random bytes, read them back, compare,
 * close) in a loop, and long-lived connections that exchange such messages until they are lost, then reconnect.
 * What happened is counted in {@link Figures}, per phase (1 and 2) where the caller distinguishes phases. A long-lived
 * connection reset before its first echo came back counts as cut, like a short one: that is a connection still in a
 * closing listener's accept backlog, not an established connection lost.
 *
 * <p>A connection attempt that fails with {@link ConnectException} is <em>refused</em>; an exchange ended by a reset or
 * end of stream with every byte received so far correct is <em>cut</em>; wrong bytes are <em>corrupted</em>; no
 * answer within 15 s is <em>timed out</em> (that client thread then stops).
 */
final class EchoChurn {

    static final int EXCHANGE_BYTES = 1024;
    private static final int CONNECT_TIMEOUT_MILLIS = 5000;
    private static final int READ_TIMEOUT_MILLIS = 15_000;

    /** Counters shared by the client threads. */
    static final class Figures {
        final AtomicLong attempted = new AtomicLong();
        final AtomicLong completed = new AtomicLong();
        final AtomicLong refused = new AtomicLong();
        final AtomicLong corrupted = new AtomicLong();
        final AtomicLong timedOut = new AtomicLong();
        /** Short exchanges ended by reset or end of stream, per phase (index 1, 2). */
        final AtomicLong[] cut = {new AtomicLong(), new AtomicLong(), new AtomicLong()};
        /** Long-lived connections lost, per phase (index 1, 2). */
        final AtomicLong[] longLost = {new AtomicLong(), new AtomicLong(), new AtomicLong()};
        final AtomicLong longExchanges = new AtomicLong();
        /** Accepted connections on a loop the server could not name the transport of (counted by the server side). */
        final AtomicLong unknownLoop = new AtomicLong();
        final List<String> firstProblems = new ArrayList<>();

        synchronized void problem(String s) {
            if (firstProblems.size() < 10) {
                firstProblems.add(s);
            }
        }

        synchronized List<String> problems() {
            return List.copyOf(firstProblems);
        }
    }

    final Figures figures = new Figures();
    /** Set once by {@link #start} before any client thread starts. */
    private volatile InetSocketAddress address;
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean stop;
    private volatile int phase = 1;

    /**
     * Starts {@code shortClients} short-connection threads and {@code longClients} long-lived ones (daemons) against
     * {@code address}; call once.
     */
    EchoChurn start(InetSocketAddress address, int shortClients, int longClients) {
        this.address = address;
        for (int i = 0; i < shortClients; i++) {
            int seed = i;
            threads.add(Selections.startDaemon("churn-short-" + i, () -> shortClient(seed)));
        }
        for (int i = 0; i < longClients; i++) {
            int seed = 1000 + i;
            threads.add(Selections.startDaemon("churn-long-" + i, () -> longClient(seed)));
        }
        return this;
    }

    /** Counts what happens from now on in phase {@code p} (1 or 2). */
    void phase(int p) {
        phase = p;
    }

    /**
     * Tells the clients to stop and waits for each for at most 30 s.
     *
     * @throws AssertionError naming a client thread that did not finish
     */
    void stopAndJoin() throws InterruptedException {
        stop = true;
        for (Thread t : threads) {
            t.join(30_000);
            if (t.isAlive()) {
                throw new AssertionError(t.getName() + " did not finish within 30 s of being told to stop");
            }
        }
    }

    /** Tells the clients to stop without waiting (for a {@code finally}). */
    void stopNow() {
        stop = true;
    }

    /** @return whether one more short exchange, made now on the calling thread, completed correctly */
    boolean freshExchange() {
        long before = figures.completed.get();
        shortExchange(new SplittableRandom(7), new byte[EXCHANGE_BYTES], new byte[EXCHANGE_BYTES]);
        return figures.completed.get() == before + 1;
    }

    private void shortClient(int seed) {
        SplittableRandom random = new SplittableRandom(seed);
        byte[] out = new byte[EXCHANGE_BYTES];
        byte[] in = new byte[EXCHANGE_BYTES];
        for (int n = 0; n < 1_000_000 && !stop; n++) {
            shortExchange(random, out, in);
        }
    }

    /** One connection: connect, write 1 KiB of random bytes, read them back, compare, close. */
    private void shortExchange(SplittableRandom random, byte[] out, byte[] in) {
        Figures f = figures;
        random.nextBytes(out);
        int phaseAtStart = phase;
        f.attempted.incrementAndGet();
        int got = 0;
        try (Socket s = new Socket()) {
            try {
                s.connect(address, CONNECT_TIMEOUT_MILLIS);
            } catch (ConnectException e) {
                f.refused.incrementAndGet();
                f.problem("refused: " + e);
                return;
            }
            s.setSoTimeout(READ_TIMEOUT_MILLIS);
            s.getOutputStream().write(out);
            InputStream is = s.getInputStream();
            while (got < out.length) {
                int r = is.read(in, got, out.length - got);
                if (r < 0) {
                    throw new EOFException("end of stream after " + got + " of " + out.length + " bytes");
                }
                got += r;
            }
            if (Arrays.equals(out, in)) {
                f.completed.incrementAndGet();
            } else {
                f.corrupted.incrementAndGet();
                f.problem("corrupted echo");
            }
        } catch (SocketTimeoutException e) {
            f.timedOut.incrementAndGet();
            f.problem("short exchange timed out after " + got + " bytes (phase " + phase + ")");
        } catch (IOException e) {
            if (got > 0 && !Arrays.equals(out, 0, got, in, 0, got)) {
                f.corrupted.incrementAndGet();
                f.problem("corrupted partial echo: " + e);
            } else {
                f.cut[Math.max(phaseAtStart, phase)].incrementAndGet();
                if (phase == 1) {
                    f.problem("phase 1 cut: " + e);
                }
            }
        }
    }

    /** Keeps one connection and exchanges 1 KiB messages on it; reconnects when it is lost. */
    private void longClient(int seed) {
        Figures f = figures;
        SplittableRandom random = new SplittableRandom(seed);
        byte[] out = new byte[EXCHANGE_BYTES];
        byte[] in = new byte[EXCHANGE_BYTES];
        while (!stop) {
            int phaseAtStart = phase;
            long exchanges = 0;
            try (Socket s = new Socket()) {
                s.connect(address, CONNECT_TIMEOUT_MILLIS);
                s.setSoTimeout(READ_TIMEOUT_MILLIS);
                OutputStream os = s.getOutputStream();
                InputStream is = s.getInputStream();
                while (!stop) {
                    random.nextBytes(out);
                    os.write(out);
                    int got = 0;
                    while (got < out.length) {
                        int r = is.read(in, got, out.length - got);
                        if (r < 0) {
                            throw new EOFException("long-lived connection: end of stream after " + got + " bytes");
                        }
                        got += r;
                    }
                    if (!Arrays.equals(out, in)) {
                        f.corrupted.incrementAndGet();
                        f.problem("corrupted long-lived echo");
                        return;
                    }
                    f.longExchanges.incrementAndGet();
                    exchanges++;
                    Thread.sleep(random.nextInt(20));
                }
            } catch (ConnectException e) {
                f.refused.incrementAndGet();
                f.problem("long-lived refused: " + e);
            } catch (SocketTimeoutException e) {
                f.timedOut.incrementAndGet();
                f.problem("long-lived exchange timed out: " + e);
                return;
            } catch (IOException e) {
                if (exchanges == 0) {
                    // reset before its first echo: a fresh connection in a closing listener's accept backlog (without
                    // tcp_migrate_req=1), counted with the short connections cut so
                    f.cut[Math.max(phaseAtStart, phase)].incrementAndGet();
                } else {
                    f.longLost[Math.max(phaseAtStart, phase)].incrementAndGet();
                }
                if (phase == 1) {
                    f.problem("phase 1 long-lived connection lost after " + exchanges + " exchanges: " + e);
                }
            } catch (InterruptedException e) {
                return;
            }
        }
    }
}
