package io.conduit.micrometer;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

import io.conduit.metrics.AllocatorMetrics;
import io.conduit.metrics.EndpointMetrics;
import io.conduit.metrics.MetricsSnapshot;
import io.conduit.metrics.TransportMetrics;
import io.conduit.transport.Transports;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Binds Conduit's metrics to Micrometer: per transport (tag {@code transport}), per managed endpoint (tags
 * {@code kind} and {@code endpoint}) and for the pooled allocator. Names and units are listed in
 * {@code docs/metrics.md}; counters are {@link FunctionCounter}s over the platform's own counters, gauges read the
 * value now. Tags stay bounded: one set per transport and per endpoint, never per connection.
 *
 * <p>Reading: every meter reads one shared {@link Transports#metrics()} snapshot, taken again when it is older than
 * {@code maxAge} (default 1 s), so a scrape walks the platform once. Transports and endpoints that appear later get
 * their meters at the next refresh, every {@code refreshInterval} (default 10 s) on a daemon thread of this binder, or
 * at once through {@link #refresh()}; an endpoint that closed loses its meters then. Like Micrometer's Kafka binder,
 * {@link #close()} stops that thread (the meters stay registered).
 *
 * <p>Thread-safe.
 */
public final class ConduitMetricsBinder implements MeterBinder, AutoCloseable {

    private final Supplier<MetricsSnapshot> source;
    private final long maxAgeNanos;
    private final List<Bound> bound = new CopyOnWriteArrayList<>();
    private final ScheduledExecutorService refresher;
    private MetricsSnapshot last;
    private long lastNanos;

    /** Binds {@link Transports#metrics()}: snapshots at most 1 s old, new endpoints picked up every 10 s. */
    public ConduitMetricsBinder() {
        this(Transports::metrics, Duration.ofSeconds(1), Duration.ofSeconds(10));
    }

    /**
     * @param source          where the metrics come from, e.g. {@code Transports::metrics}
     * @param maxAge          how old a snapshot may be when a meter is read; {@link Duration#ZERO} takes one per read
     * @param refreshInterval how often transports and endpoints that appeared or closed are looked for;
     *                        {@link Duration#ZERO} only on {@link #refresh()}
     * @throws IllegalArgumentException for a negative duration
     */
    public ConduitMetricsBinder(Supplier<MetricsSnapshot> source, Duration maxAge, Duration refreshInterval) {
        if (maxAge.isNegative() || refreshInterval.isNegative()) {
            throw new IllegalArgumentException("durations must not be negative: maxAge " + maxAge
                    + ", refreshInterval " + refreshInterval);
        }
        this.source = source;
        this.maxAgeNanos = maxAge.toNanos();
        if (refreshInterval.isZero()) {
            refresher = null;
        } else {
            refresher = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "conduit-micrometer-refresh");
                t.setDaemon(true);
                return t;
            });
            long millis = Math.max(1, refreshInterval.toMillis());
            refresher.scheduleWithFixedDelay(this::refresh, millis, millis, TimeUnit.MILLISECONDS);
        }
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Bound b = new Bound(registry);
        bound.add(b);
        registerAllocator(registry);
        b.refresh(snapshot());
    }

    /** Registers the meters of transports and endpoints that appeared since, and removes those of closed endpoints. */
    public void refresh() {
        MetricsSnapshot s = snapshot();
        for (Bound b : bound) {
            b.refresh(s);
        }
    }

    /** Stops the refresh thread; the meters stay registered and keep reading. */
    @Override
    public void close() {
        if (refresher != null) {
            refresher.shutdownNow();
        }
    }

    private synchronized MetricsSnapshot snapshot() {
        long now = System.nanoTime();
        if (last == null || now - lastNanos > maxAgeNanos) {
            last = source.get();
            lastNanos = now;
        }
        return last;
    }

    private TransportMetrics transport(String name) {
        return snapshot().transport(name).orElse(null);
    }

    private EndpointMetrics endpoint(String kind, String name) {
        for (EndpointMetrics e : snapshot().endpoints()) {
            if (e.getKind().equals(kind) && e.getName().equals(name)) {
                return e;
            }
        }
        return null;
    }

    private void registerAllocator(MeterRegistry r) {
        Tags tags = Tags.of("allocator", "pooled");
        gauge(r, "conduit.allocator.direct.used", "bytes", "direct memory in buffers handed out now", tags,
                m -> m.allocator().getUsedDirectBytes());
        gauge(r, "conduit.allocator.direct.pooled", "bytes", "direct memory the pool holds now, used or free", tags,
                m -> m.allocator().getPooledDirectBytes());
        gauge(r, "conduit.allocator.direct.max", "bytes", "the cap on pooled direct memory", tags,
                m -> m.allocator().getMaxDirectBytes());
        gauge(r, "conduit.allocator.chunks", null, "chunks the pool holds now", tags, m -> m.allocator().getChunks());
        FunctionCounter.builder("conduit.allocator.leak.reports", this,
                b -> b.snapshot().allocator().getLeakReports()).description(
                        "buffers collected without their last release()").tags(tags).register(r);
    }

    private void gauge(MeterRegistry r, String name, String unit, String description, Tags tags,
            ToDoubleFunction<MetricsSnapshot> value) {
        Gauge.builder(name, this, b -> value.applyAsDouble(b.snapshot())).baseUnit(unit).description(description)
                .tags(tags).register(r);
    }

    /** One registry and the meters this binder added to it per transport and endpoint. */
    private final class Bound {
        private final MeterRegistry registry;
        private final Set<String> transports = new HashSet<>();
        private final Map<String, List<Meter>> endpoints = new HashMap<>();

        Bound(MeterRegistry registry) {
            this.registry = registry;
        }

        synchronized void refresh(MetricsSnapshot s) {
            for (TransportMetrics t : s.transports()) {
                if (transports.add(t.getName())) {
                    registerTransport(t.getName());
                }
            }
            Set<String> open = new HashSet<>();
            for (EndpointMetrics e : s.endpoints()) {
                String key = e.getKind() + ' ' + e.getName();
                open.add(key);
                endpoints.computeIfAbsent(key, k -> registerEndpoint(e.getKind(), e.getName()));
            }
            endpoints.entrySet().removeIf(entry -> {
                if (open.contains(entry.getKey())) {
                    return false;
                }
                entry.getValue().forEach(registry::remove);
                return true;
            });
        }

        private void registerTransport(String name) {
            Tags tags = Tags.of("transport", name);
            counter("conduit.transport.connections.accepted", null, "connections accepted by listeners", tags,
                    b -> value(b.transport(name), TransportMetrics::getAcceptedConnections));
            counter("conduit.transport.read", "bytes", "payload bytes read from sockets", tags,
                    b -> value(b.transport(name), TransportMetrics::getBytesRead));
            counter("conduit.transport.written", "bytes", "payload bytes written to sockets", tags,
                    b -> value(b.transport(name), TransportMetrics::getBytesWritten));
            counter("conduit.transport.datagrams.read", null, "datagrams received", tags,
                    b -> value(b.transport(name), TransportMetrics::getDatagramsRead));
            counter("conduit.transport.datagrams.written", null, "datagrams sent", tags,
                    b -> value(b.transport(name), TransportMetrics::getDatagramsWritten));
            counter("conduit.transport.io.errors", null, "failed reads, writes, connects and accepts", tags,
                    b -> value(b.transport(name), TransportMetrics::getIoErrors));
            counter("conduit.transport.loop.busy", "seconds", "time event loops spent handling I/O and tasks", tags,
                    b -> value(b.transport(name), TransportMetrics::getBusyNanos) / 1e9);
            counter("conduit.transport.loop.wait", "seconds", "time event loops spent blocked in their poller", tags,
                    b -> value(b.transport(name), TransportMetrics::getWaitNanos) / 1e9);
            Gauge.builder("conduit.transport.channels.open", ConduitMetricsBinder.this,
                    b -> value(b.transport(name), TransportMetrics::getOpenChannels)).description(
                            "channels open now: listeners, connections, datagram channels").tags(tags)
                    .register(registry);
            Gauge.builder("conduit.transport.tasks.pending", ConduitMetricsBinder.this,
                    b -> value(b.transport(name), TransportMetrics::getPendingTasks)).description(
                            "tasks queued for the event loops now").tags(tags).register(registry);
            Gauge.builder("conduit.transport.event.loops", ConduitMetricsBinder.this,
                    b -> value(b.transport(name), TransportMetrics::getEventLoops)).description(
                            "event loops running now").tags(tags).register(registry);
        }

        private List<Meter> registerEndpoint(String kind, String name) {
            Tags tags = Tags.of("kind", kind, "endpoint", name);
            return List.of(
                    Gauge.builder("conduit.endpoint.connections.open", ConduitMetricsBinder.this,
                            b -> value(b.endpoint(kind, name), EndpointMetrics::getOpenConnections)).description(
                                    "connections or adopted channels open now, on every transport").tags(tags)
                            .register(registry),
                    counter("conduit.endpoint.connections.accepted", null, "connections accepted, on every transport",
                            tags, b -> value(b.endpoint(kind, name), EndpointMetrics::getAcceptedConnections)),
                    counter("conduit.endpoint.swaps", null, "swaps to another transport", tags,
                            b -> value(b.endpoint(kind, name), EndpointMetrics::getSwaps)),
                    counter("conduit.endpoint.swaps.without.overlap", null,
                            "swaps that closed the old listener before binding the new one", tags,
                            b -> value(b.endpoint(kind, name), EndpointMetrics::getSwapsWithoutOverlap)),
                    counter("conduit.endpoint.swap.failures", null, "swaps that found no transport to bind on", tags,
                            b -> value(b.endpoint(kind, name), EndpointMetrics::getSwapFailures)),
                    counter("conduit.endpoint.drains", null, "drains started", tags,
                            b -> value(b.endpoint(kind, name), EndpointMetrics::getDrains)),
                    counter("conduit.endpoint.drained.connections", null, "connections closed by a drain", tags,
                            b -> value(b.endpoint(kind, name), EndpointMetrics::getDrainedConnections)),
                    counter("conduit.endpoint.drain.timeouts", null,
                            "connections a drain closed at the grace period with writes pending", tags,
                            b -> value(b.endpoint(kind, name), EndpointMetrics::getDrainTimeouts)));
        }

        private Meter counter(String name, String unit, String description, Tags tags,
                ToDoubleFunction<ConduitMetricsBinder> value) {
            return FunctionCounter.builder(name, ConduitMetricsBinder.this, value).baseUnit(unit)
                    .description(description).tags(tags).register(registry);
        }
    }

    /** @return {@code f(metrics)}, or 0 when the transport or endpoint is not in the snapshot (any more) */
    private static <T> double value(T metrics, ToDoubleFunction<T> f) {
        return metrics == null ? 0 : f.applyAsDouble(metrics);
    }
}
