package io.conduit.gateway.internal.metrics;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.conduit.concurrent.EventExecutor;

/**
 * The counters of one listening endpoint of an echo or relay: connections, bytes and datagrams each way, and for a
 * relay its upstream traffic, connect failures and connect durations.
 *
 * <p><b>Cost on the hot path.</b> The counters are split into one {@link Cell} per event loop. A cell is written only
 * by its loop's thread, so counting is a plain add followed by an opaque store ({@link VarHandle#setOpaque}): no lock,
 * no compare-and-set, no fence on x86 or ARM. The opaque store keeps a 64-bit value from being read half-written on a
 * 32-bit JVM (armv7). Only a connection's close is a release store, once per connection. A handler finds its cell once
 * per connection ({@link #cell}: a concurrent map lookup) and keeps it.
 *
 * <p><b>Reading.</b> {@link #snapshot()} sums the cells with opaque loads, racily: each value is one that was stored,
 * and a sum may miss the last few adds of a loop that is counting at that moment. A loop's counts never go backwards.
 * Connections open are read with acquire loads against the release store of each close, so the gauge is never negative
 * and never above what was open (see {@code Cell.open}). When a loop terminates (its group stopped after a transport
 * swap) its cell is folded into totals kept here and the loop is forgotten, so cells do not pile up across swaps and
 * no loop of a stopped transport bundle stays referenced.
 *
 * <p>Thread-safe: {@link #cell} from any thread; a {@link Cell}'s methods only on its loop; {@link #snapshot()} from
 * any thread (snapshots are serialised by {@code this}).
 */
public final class EndpointCounters {

    /** Upper bounds of the upstream connect duration buckets, in seconds (plus {@code +Inf}). */
    public static final double[] CONNECT_SECONDS_BOUNDS = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
        0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
    /** {@link #CONNECT_SECONDS_BOUNDS} in nanoseconds. */
    private static final long[] CONNECT_NANOS_BOUNDS = new long[CONNECT_SECONDS_BOUNDS.length];

    static {
        for (int i = 0; i < CONNECT_SECONDS_BOUNDS.length; i++) {
            CONNECT_NANOS_BOUNDS[i] = Math.round(CONNECT_SECONDS_BOUNDS[i] * 1e9);
        }
    }

    // Indices into a cell's values.
    private static final int OPENED = 0;
    private static final int CLOSED = 1;
    private static final int CLIENT_RECEIVED_BYTES = 2;
    private static final int CLIENT_SENT_BYTES = 3;
    private static final int CLIENT_RECEIVED_DATAGRAMS = 4;
    private static final int CLIENT_SENT_DATAGRAMS = 5;
    private static final int UPSTREAM_RECEIVED_BYTES = 6;
    private static final int UPSTREAM_SENT_BYTES = 7;
    private static final int CONNECT_FAILURES = 8;
    private static final int CONNECT_NANOS = 9;
    private static final int CLIENT_TLS_FAILURES = 10;
    private static final int UPSTREAM_TLS_FAILURES = 11;
    /** The first connect duration bucket; one per bound, then the one above the largest bound. */
    private static final int CONNECT_BUCKETS = 12;
    private static final int VALUES = CONNECT_BUCKETS + CONNECT_SECONDS_BOUNDS.length + 1;

    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);

    /** Which side of a connection bytes move on: to and from the client, or to and from a relay's upstream. */
    public enum Side {
        /** The client's connection (or datagrams) at the gateway's listening endpoint. */
        CLIENT(CLIENT_RECEIVED_BYTES, CLIENT_SENT_BYTES, CLIENT_TLS_FAILURES),
        /** A relay's connection (or session socket) to its upstream. */
        UPSTREAM(UPSTREAM_RECEIVED_BYTES, UPSTREAM_SENT_BYTES, UPSTREAM_TLS_FAILURES);

        private final int received;
        private final int sent;
        private final int tlsFailures;

        Side(int received, int sent, int tlsFailures) {
            this.received = received;
            this.sent = sent;
            this.tlsFailures = tlsFailures;
        }
    }

    /** The cell of each event loop that counted here; concurrent map. */
    private final Map<EventExecutor, Cell> cells = new ConcurrentHashMap<>();
    /** The sums of the cells of loops that terminated ({@link #retire}); guarded by this. */
    private final long[] retired = new long[VALUES];

    /**
     * @param loop the event loop the caller runs on and will count from
     * @return that loop's cell, made on the first call
     */
    public Cell cell(EventExecutor loop) {
        Cell c = cells.get(loop);
        return c != null ? c : cells.computeIfAbsent(loop, this::newCell);
    }

    /** Makes the cell of {@code loop}, retired when the loop terminates; called once per loop. */
    private Cell newCell(EventExecutor loop) {
        loop.terminationFuture().addListener(f -> retire(loop));
        return new Cell();
    }

    /**
     * Folds the cell of a terminated loop into {@link #retired} and forgets the loop, so a loop of a stopped transport
     * (and its bundle's class loader) is not kept here. The loop's last writes happen-before its termination.
     */
    private synchronized void retire(EventExecutor loop) {
        Cell c = cells.remove(loop);
        if (c != null) {
            for (int i = 0; i < VALUES; i++) {
                retired[i] += c.get(i);
            }
        }
    }

    /** @return how many loops have a cell now (tests) */
    int cellCount() {
        return cells.size();
    }

    /**
     * The counts of one event loop. Every method must be called on that loop's thread (the single writer).
     */
    public static final class Cell {
        private final long[] values = new long[VALUES];

        private Cell() {
        }

        private void add(int index, long n) {
            LONGS.setOpaque(values, index, values[index] + n);
        }

        /** A client connection (or UDP relay session) opened. */
        public void connectionOpened() {
            add(OPENED, 1);
        }

        /**
         * A connection counted by {@link #connectionOpened()} closed. A release store: a reader that sees this close
         * (an acquire load) sees its open too, so open minus closed is never negative.
         */
        public void connectionClosed() {
            LONGS.setRelease(values, CLOSED, values[CLOSED] + 1);
        }

        /** @param bytes bytes received on {@code side} */
        public void received(Side side, long bytes) {
            add(side.received, bytes);
        }

        /** @param bytes bytes sent (handed to the channel) on {@code side} */
        public void sent(Side side, long bytes) {
            add(side.sent, bytes);
        }

        /** @param bytes the payload of one datagram received from a client */
        public void datagramReceived(long bytes) {
            add(CLIENT_RECEIVED_DATAGRAMS, 1);
            add(CLIENT_RECEIVED_BYTES, bytes);
        }

        /** @param bytes the payload of one datagram sent to a client */
        public void datagramSent(long bytes) {
            add(CLIENT_SENT_DATAGRAMS, 1);
            add(CLIENT_SENT_BYTES, bytes);
        }

        /** A TLS handshake on {@code side} failed: the gateway's as server (client side) or as client (upstream). */
        public void tlsHandshakeFailed(Side side) {
            add(side.tlsFailures, 1);
        }

        /** An upstream connect failed: refused, timed out, or could not start. */
        public void connectFailed() {
            add(CONNECT_FAILURES, 1);
        }

        /** @param nanos how long a successful upstream connect took, in nanoseconds */
        public void connected(long nanos) {
            long n = Math.max(0, nanos);
            int bucket = 0;
            while (bucket < CONNECT_NANOS_BOUNDS.length && n > CONNECT_NANOS_BOUNDS[bucket]) {
                bucket++;
            }
            add(CONNECT_BUCKETS + bucket, 1);
            add(CONNECT_NANOS, n);
        }

        private long get(int index) {
            return (long) LONGS.getOpaque(values, index);
        }

        /**
         * Reads the opened and closed counts into {@code into} and tells how many connections are open: closed, then
         * opened, then closed again (acquire loads, so they happen in this order). When no close came in between,
         * opened minus closed is the number open at the moment opened was read. Otherwise it tries again, a few times;
         * then it takes opened minus the later closed, which is at most the number open at that moment, and at least
         * 0. The gauge is so never negative and never above what was open.
         *
         * @return connections of this cell open now, as above
         */
        private long open(long[] into) {
            long opened = 0;
            long closed = 0;
            for (int attempt = 0; attempt < 4; attempt++) {
                long before = (long) LONGS.getAcquire(values, CLOSED);
                opened = (long) LONGS.getAcquire(values, OPENED);
                closed = (long) LONGS.getAcquire(values, CLOSED);
                if (closed == before) {
                    break;
                }
            }
            into[OPENED] = opened;
            into[CLOSED] = closed;
            return Math.max(0, opened - closed);
        }
    }

    /**
     * The counters of an endpoint at one moment (read racily, see the class comment).
     *
     * @param connectionsOpen         client connections (UDP relay: sessions) open now
     * @param connectionsTotal        client connections (sessions) opened so far
     * @param clientReceivedBytes     bytes received from clients
     * @param clientSentBytes         bytes sent to clients
     * @param clientReceivedDatagrams datagrams received from clients
     * @param clientSentDatagrams     datagrams sent to clients
     * @param upstreamReceivedBytes   bytes received from the upstream
     * @param upstreamSentBytes       bytes sent to the upstream
     * @param connectFailures         upstream connects that failed
     * @param connectBuckets          successful upstream connects per duration bucket (not cumulative), one per bound
     *                                of {@link #CONNECT_SECONDS_BOUNDS} and one above them
     * @param connectSeconds          the summed duration of the successful upstream connects, in seconds
     * @param clientTlsFailures       TLS handshakes with clients that failed ({@code tls://} listeners)
     * @param upstreamTlsFailures     TLS handshakes with the upstream that failed ({@code tls://} upstreams)
     */
    public record Snapshot(long connectionsOpen, long connectionsTotal, long clientReceivedBytes, long clientSentBytes,
            long clientReceivedDatagrams, long clientSentDatagrams, long upstreamReceivedBytes, long upstreamSentBytes,
            long connectFailures, long[] connectBuckets, double connectSeconds, long clientTlsFailures,
            long upstreamTlsFailures) {

        /** @return the successful upstream connects */
        public long connects() {
            long n = 0;
            for (long b : connectBuckets) {
                n += b;
            }
            return n;
        }
    }

    /** @return the sums over every cell now, and over the cells of loops that terminated */
    public synchronized Snapshot snapshot() {
        long[] sum = retired.clone();
        long open = 0;
        for (Cell c : cells.values()) {
            long[] v = new long[VALUES];
            open += c.open(v);
            for (int i = 0; i < VALUES; i++) {
                if (i != OPENED && i != CLOSED) {
                    v[i] = c.get(i);
                }
                sum[i] += v[i];
            }
        }
        long[] buckets = new long[CONNECT_SECONDS_BOUNDS.length + 1];
        System.arraycopy(sum, CONNECT_BUCKETS, buckets, 0, buckets.length);
        return new Snapshot(open, sum[OPENED], sum[CLIENT_RECEIVED_BYTES],
                sum[CLIENT_SENT_BYTES], sum[CLIENT_RECEIVED_DATAGRAMS], sum[CLIENT_SENT_DATAGRAMS],
                sum[UPSTREAM_RECEIVED_BYTES], sum[UPSTREAM_SENT_BYTES], sum[CONNECT_FAILURES], buckets,
                (double) sum[CONNECT_NANOS] / TimeUnit.SECONDS.toNanos(1), sum[CLIENT_TLS_FAILURES],
                sum[UPSTREAM_TLS_FAILURES]);
    }
}
