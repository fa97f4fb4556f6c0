package io.conduit.internal.metrics;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.IntSupplier;

import javax.management.ObjectName;

import io.conduit.concurrent.EventLoop;
import io.conduit.internal.buffer.Allocators;
import io.conduit.metrics.AllocatorMetrics;
import io.conduit.metrics.EndpointMetrics;
import io.conduit.metrics.EventLoopMetrics;
import io.conduit.metrics.MetricsSnapshot;
import io.conduit.metrics.TransportMetrics;

/**
 * The platform's metrics: every transport's loops, the managed endpoints and the pooled allocator, with their JMX
 * views. Static, thread-safe; touched when a loop is made or terminates, when an endpoint starts or closes, and
 * by readers, never per read or write.
 */
public final class PlatformMetrics {

    /** The transport name of loops whose group no transport made. */
    public static final String UNNAMED = "unnamed";

    private static final ConcurrentHashMap<String, TransportCounters> TRANSPORTS = new ConcurrentHashMap<>();
    private static final Set<EndpointCounters> ENDPOINTS = ConcurrentHashMap.newKeySet();
    private static final Map<EventLoop, ObjectName> LOOP_MBEANS = new ConcurrentHashMap<>();
    private static final AtomicInteger LOOP_IDS = new AtomicInteger();
    /** Provider names seen by the last {@link #providersChanged}; guarded by PlatformMetrics.class. */
    private static Set<String> providers = Set.of();

    private PlatformMetrics() {
    }

    private static TransportCounters transport(String name) {
        return TRANSPORTS.computeIfAbsent(name, TransportCounters::new);
    }

    /**
     * A loop was made: lists it under its transport and registers its and the transport's MBeans.
     *
     * @param pendingTasks counts the loop's queued tasks; must not refer to the loop's poller or transport
     */
    public static LoopCounters newLoop(EventLoop loop, String transportName, IntSupplier pendingTasks) {
        String t = transportName == null ? UNNAMED : transportName;
        TransportCounters tc = transport(t);
        LoopCounters c = new LoopCounters(t + "-loop-" + LOOP_IDS.incrementAndGet(), t, pendingTasks);
        tc.add(loop, c);
        if (Jmx.enabled()) {
            registerTransport(t);
            registerAllocator();
            ObjectName n = Jmx.name("type=EventLoop,transport=" + Jmx.value(t) + ",name=" + Jmx.value(c.name()));
            if (Jmx.register(n, new EventLoopView(tc, loop, c), EventLoopMetrics.class)) {
                LOOP_MBEANS.put(loop, n);
            }
        }
        return c;
    }

    /** A loop terminated: folds its counters into its transport's totals and unregisters its MBean. */
    public static void loopTerminated(EventLoop loop, LoopCounters counters) {
        transport(counters.transport()).retire(loop);
        Jmx.unregister(LOOP_MBEANS.remove(loop));
    }

    static ObjectName transportName(String name) {
        return Jmx.name("type=Transport,name=" + Jmx.value(name));
    }

    private static final ObjectName ALLOCATOR = Jmx.name("type=Allocator,name=pooled");

    private static void registerTransport(String name) {
        ObjectName n = transportName(name);
        if (!Jmx.isRegistered(n)) {
            synchronized (PlatformMetrics.class) {
                if (!Jmx.isRegistered(n)) {
                    Jmx.register(n, new TransportView(name), TransportMetrics.class);
                }
            }
        }
    }

    private static void registerAllocator() {
        if (!Jmx.isRegistered(ALLOCATOR)) {
            synchronized (PlatformMetrics.class) {
                if (!Jmx.isRegistered(ALLOCATOR)) {
                    Jmx.register(ALLOCATOR, Allocators.metrics(), AllocatorMetrics.class);
                }
            }
        }
    }

    /**
     * The registered providers changed: the Transport MBean of a provider that went away is unregistered (it comes
     * back, with its totals, when the transport makes a group again).
     */
    public static void providersChanged(Collection<String> names) {
        Set<String> now = new HashSet<>(names);
        Set<String> gone;
        synchronized (PlatformMetrics.class) {
            gone = new HashSet<>(providers);
            gone.removeAll(now);
            providers = now;
        }
        for (String name : gone) {
            Jmx.unregister(transportName(name));
        }
    }

    static void listEndpoint(EndpointCounters e) {
        ENDPOINTS.add(e);
        ObjectName old = e.objectName();
        ObjectName n = Jmx.name("type=" + e.getKind() + ",name=" + ObjectName.quote(e.getName()));
        if (n == null || n.equals(old) && Jmx.isRegistered(n)) {
            return;
        }
        Jmx.unregister(old);
        e.objectName(Jmx.register(n, e, EndpointMetrics.class) ? n : null);
    }

    static void unlistEndpoint(EndpointCounters e) {
        ENDPOINTS.remove(e);
        Jmx.unregister(e.objectName());
        e.objectName(null);
    }

    /**
     * Sets where open channels are counted from. The channel core's list of open channels calls it once, when its
     * class loads; before that no channel is open.
     *
     * @param openChannels visits each open channel with its transport name and event loop ({@code null} if none)
     */
    public static void openChannelSource(Consumer<BiConsumer<String, EventLoop>> openChannels) {
        OpenChannelCounts.source(openChannels);
    }

    /** @return one transport's values now (JMX view) */
    static IoValues transportValues(String name) {
        return transport(name).values(System.nanoTime(), OpenChannelCounts.count(), null);
    }

    /** @return the platform's metrics now */
    public static MetricsSnapshot snapshot() {
        long now = System.nanoTime();
        OpenChannelCounts open = OpenChannelCounts.count();
        List<TransportMetrics> transports = new ArrayList<>();
        List<IoValues> loops = new ArrayList<>();
        for (TransportCounters t : TRANSPORTS.values()) {
            transports.add(t.values(now, open, loops));
        }
        transports.sort(Comparator.comparing(TransportMetrics::getName));
        List<EventLoopMetrics> loopList = new ArrayList<>(loops);
        loopList.sort(Comparator.comparing(EventLoopMetrics::getName));
        List<EndpointMetrics> endpoints = new ArrayList<>();
        for (EndpointCounters e : ENDPOINTS) {
            endpoints.add(e.copy());
        }
        endpoints.sort(Comparator.comparing(EndpointMetrics::getName).thenComparing(EndpointMetrics::getKind));
        return new Snapshot(now, List.copyOf(transports), List.copyOf(loopList), List.copyOf(endpoints),
                Allocators.metricsCopy());
    }

    private record Snapshot(long nanoTime, List<TransportMetrics> transports, List<EventLoopMetrics> eventLoops,
            List<EndpointMetrics> endpoints, AllocatorMetrics allocator) implements MetricsSnapshot {
    }
}
