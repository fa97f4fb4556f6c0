package io.conduit.internal.metrics;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.conduit.concurrent.EventLoop;

/**
 * One transport's loops: the live ones, and the sum of those that terminated, so the transport's totals survive
 * group shutdowns and transport swaps. Keyed by loop; holds a loop only until it terminates. Thread-safe: guarded
 * by this object's monitor (taken when a loop is made or terminates, and by the collector, never per I/O).
 */
final class TransportCounters {

    final String name;
    private final Map<EventLoop, LoopCounters> live = new LinkedHashMap<>(); // guarded by this
    private final IoValues retired;                                          // guarded by this

    TransportCounters(String name) {
        this.name = name;
        this.retired = new IoValues(name, name);
    }

    synchronized void add(EventLoop loop, LoopCounters counters) {
        live.put(loop, counters);
    }

    /** Folds a terminated loop into the retired totals. */
    synchronized void retire(EventLoop loop) {
        LoopCounters c = live.remove(loop);
        if (c != null) {
            IoValues v = new IoValues(c.name(), name);
            c.addTo(v, System.nanoTime());
            retired.addCounters(v);
        }
    }

    /** @return the live loops' counters, in the order the loops were made */
    synchronized List<Map.Entry<EventLoop, LoopCounters>> liveLoops() {
        return new ArrayList<>(live.entrySet());
    }

    /**
     * @param loops receives each live loop's values, with its open channels, when not {@code null}
     * @return the transport's totals
     */
    synchronized IoValues values(long nowNanos, OpenChannelCounts open, List<IoValues> loops) {
        IoValues total = new IoValues(name, name);
        total.addCounters(retired);
        for (Map.Entry<EventLoop, LoopCounters> e : live.entrySet()) {
            IoValues v = new IoValues(e.getValue().name(), name);
            e.getValue().addTo(v, nowNanos);
            v.openChannels = open.onLoop(e.getKey());
            total.addCounters(v);
            total.pendingTasks += v.pendingTasks;
            if (loops != null) {
                loops.add(v);
            }
        }
        total.eventLoops = live.size();
        total.openChannels = open.ofTransport(name);
        return total;
    }
}
