package io.conduit.testsuite;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A UDP load against an echo, counting every reply: a few clients (plain {@code java.net} sockets on loopback), each
 * sending numbered datagrams with at most {@code window} of them unanswered, so the echo's and the clients' receive
 * buffers can never overflow and a missing reply means a datagram really was lost on the way. A datagram unanswered
 * after {@value #WRITE_OFF_MILLIS} ms is written off (counted as lost unless its reply still comes before
 * {@link #stop}). {@link #mark} starts a phase (e.g. a transport swap): each lost datagram is charged to the phase it
 * was sent in. Bounded: each client stops by itself at {@code maxPerClient} datagrams.
 *
 * <p>Thread-safe: {@link #mark} may be called from any thread while the load runs.
 */
public final class UdpEchoLoad implements AutoCloseable {

    /** How long a datagram may stay unanswered before it is written off, in milliseconds. */
    public static final long WRITE_OFF_MILLIS = 500;

    /** One phase: its label, datagrams sent in it, and those of them whose reply never came. */
    public record Phase(String label, long sent, long lost) {
    }

    /** What {@link #stop} found. */
    public record Result(long sent, long lost, List<Phase> phases) {
        /** @return e.g. {@code sent=12000 lost=0; before any swap: 3000 sent, 0 lost; ...} */
        @Override
        public String toString() {
            StringBuilder b = new StringBuilder("sent=" + sent + " lost=" + lost);
            for (Phase p : phases) {
                b.append("; ").append(p.label()).append(": ").append(p.sent()).append(" sent, ").append(p.lost())
                        .append(" lost");
            }
            return b.toString();
        }
    }

    private record Mark(long atNanos, String label) {
    }

    /** Reply state of a datagram: none yet, replied, written off (and maybe replied late). */
    private static final int PENDING = 0;
    private static final int REPLIED = 1;
    private static final int WRITTEN_OFF = 2;

    private final InetSocketAddress target;
    private final int clients;
    private final int window;
    private final int maxPerClient;
    private final AtomicLongArray sentAt;
    private final AtomicIntegerArray state;
    private final int[] sentCount;
    private final List<Mark> marks = new CopyOnWriteArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final List<DatagramSocket> sockets = new ArrayList<>();
    private volatile boolean stopping;

    /**
     * @param target       the echo
     * @param clients      sockets sending at once
     * @param window       unanswered datagrams each client allows
     * @param maxPerClient datagrams each client sends at most
     */
    public UdpEchoLoad(InetSocketAddress target, int clients, int window, int maxPerClient) {
        this.target = target;
        this.clients = clients;
        this.window = window;
        this.maxPerClient = maxPerClient;
        this.sentAt = new AtomicLongArray(clients * maxPerClient);
        this.state = new AtomicIntegerArray(clients * maxPerClient);
        this.sentCount = new int[clients];
        marks.add(new Mark(Long.MIN_VALUE, "before any swap"));
    }

    /** Starts the clients. */
    public UdpEchoLoad start() throws IOException {
        for (int c = 0; c < clients; c++) {
            DatagramSocket socket = new DatagramSocket(new InetSocketAddress(target.getAddress(), 0));
            socket.setSoTimeout(50);
            sockets.add(socket);
            Semaphore permits = new Semaphore(window);
            int client = c;
            threads.add(new Thread(() -> send(client, socket, permits), "udp-load-sender-" + c));
            threads.add(new Thread(() -> receive(socket, permits), "udp-load-receiver-" + c));
        }
        for (Thread t : threads) {
            t.setDaemon(true);
            t.start();
        }
        return this;
    }

    private void send(int client, DatagramSocket socket, Semaphore permits) {
        byte[] out = new byte[64];
        int n = 0;
        int oldest = 0; // the oldest datagram not yet replied or written off
        try {
            while (!stopping && n < maxPerClient) {
                if (!permits.tryAcquire(20, TimeUnit.MILLISECONDS)) {
                    long tooOld = System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(WRITE_OFF_MILLIS);
                    for (; oldest < n; oldest++) {
                        int seq = client * maxPerClient + oldest;
                        if (state.get(seq) != PENDING) {
                            continue;
                        }
                        if (sentAt.get(seq) - tooOld > 0) {
                            break;
                        }
                        if (state.compareAndSet(seq, PENDING, WRITTEN_OFF)) {
                            permits.release();
                        }
                    }
                    continue;
                }
                int seq = client * maxPerClient + n;
                ByteBuffer.wrap(out).putInt(seq);
                sentAt.set(seq, System.nanoTime());
                socket.send(new DatagramPacket(out, out.length, target));
                n++;
                sentCount[client] = n;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            if (!socket.isClosed()) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private void receive(DatagramSocket socket, Semaphore permits) {
        byte[] in = new byte[128];
        DatagramPacket p = new DatagramPacket(in, in.length);
        while (!socket.isClosed()) {
            try {
                socket.receive(p);
            } catch (SocketTimeoutException e) {
                continue;
            } catch (IOException e) {
                return; // closed by stop()
            }
            int seq = ByteBuffer.wrap(in).getInt();
            if (seq < 0 || seq >= state.length()) {
                continue;
            }
            if (state.compareAndSet(seq, PENDING, REPLIED)) {
                permits.release();
            } else {
                state.compareAndSet(seq, WRITTEN_OFF, REPLIED); // late: not lost after all
            }
        }
    }

    /** Starts a phase named {@code label}: datagrams sent from now on are charged to it. */
    public void mark(String label) {
        marks.add(new Mark(System.nanoTime(), label));
    }

    /**
     * Stops sending, waits {@code drainMillis} for the last replies, closes the sockets and counts.
     *
     * @return every datagram sent and lost, in total and per phase
     */
    public Result stop(long drainMillis) throws InterruptedException {
        stopping = true;
        for (int i = 0; i < threads.size(); i += 2) {
            threads.get(i).join(10_000);
        }
        Thread.sleep(drainMillis);
        close();
        for (Thread t : threads) {
            t.join(10_000);
        }
        long[] sentIn = new long[marks.size()];
        long[] lostIn = new long[marks.size()];
        long sent = 0;
        long lost = 0;
        for (int c = 0; c < clients; c++) {
            for (int n = 0; n < sentCount[c]; n++) {
                int seq = c * maxPerClient + n;
                int phase = 0;
                for (int m = 1; m < marks.size(); m++) {
                    if (marks.get(m).atNanos() - sentAt.get(seq) <= 0) {
                        phase = m;
                    }
                }
                sent++;
                sentIn[phase]++;
                if (state.get(seq) != REPLIED) {
                    lost++;
                    lostIn[phase]++;
                }
            }
        }
        List<Phase> phases = new ArrayList<>();
        for (int m = 0; m < marks.size(); m++) {
            phases.add(new Phase(marks.get(m).label(), sentIn[m], lostIn[m]));
        }
        return new Result(sent, lost, phases);
    }

    @Override
    public void close() {
        stopping = true;
        for (DatagramSocket s : sockets) {
            s.close();
        }
    }
}
