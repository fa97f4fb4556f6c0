package io.conduit.gateway.internal.metrics;

import java.util.function.Supplier;
import java.util.function.ToLongFunction;

import org.osgi.service.component.annotations.Component;

import io.conduit.metrics.AllocatorMetrics;
import io.conduit.metrics.EndpointMetrics;
import io.conduit.metrics.MetricsSnapshot;
import io.conduit.metrics.TransportMetrics;
import io.conduit.transport.Transports;

/**
 * The platform's metrics in each scrape of the gateway's metrics endpoint: per transport (label {@code transport}),
 * per {@code ManagedServer} and {@code ManagedDatagramEndpoint} the gateway runs (labels {@code kind} and
 * {@code address}: one per configured endpoint), and the pooled allocator. One {@link Transports#metrics()}
 * snapshot per scrape. The families are listed in {@code docs/gateway.md}.
 *
 * <p>Stateless; {@link #collect} may run for two scrapes at once.
 */
@Component(service = MetricsCollector.class)
public final class PlatformMetrics implements MetricsCollector {

    private final Supplier<MetricsSnapshot> source;

    /** The platform's own metrics ({@link Transports#metrics()}). */
    public PlatformMetrics() {
        this(Transports::metrics);
    }

    PlatformMetrics(Supplier<MetricsSnapshot> source) {
        this.source = source;
    }

    @Override
    public void collect(Exposition scrape) {
        MetricsSnapshot s = source.get();
        for (TransportMetrics t : s.transports()) {
            String[] l = {"transport", t.getName()};
            scrape.gauge("conduit_transport_channels_open", "channels open now: listeners, connections, datagram"
                    + " channels").sample(t.getOpenChannels(), l);
            scrape.gauge("conduit_transport_event_loops", "event loops running now").sample(t.getEventLoops(), l);
            scrape.gauge("conduit_transport_pending_tasks", "tasks queued for the event loops now")
                    .sample(t.getPendingTasks(), l);
            counter(scrape, "conduit_transport_accepted_connections_total", "connections accepted by listeners", t,
                    TransportMetrics::getAcceptedConnections, l);
            counter(scrape, "conduit_transport_read_bytes_total", "payload bytes read from sockets", t,
                    TransportMetrics::getBytesRead, l);
            counter(scrape, "conduit_transport_written_bytes_total", "payload bytes written to sockets", t,
                    TransportMetrics::getBytesWritten, l);
            counter(scrape, "conduit_transport_read_datagrams_total", "datagrams received", t,
                    TransportMetrics::getDatagramsRead, l);
            counter(scrape, "conduit_transport_written_datagrams_total", "datagrams sent", t,
                    TransportMetrics::getDatagramsWritten, l);
            counter(scrape, "conduit_transport_io_errors_total", "failed reads, writes, connects and accepts", t,
                    TransportMetrics::getIoErrors, l);
            scrape.counter("conduit_transport_loop_busy_seconds_total", "seconds event loops spent handling I/O and"
                    + " tasks").sample(t.getBusyNanos() / 1e9, l);
            scrape.counter("conduit_transport_loop_wait_seconds_total", "seconds event loops spent blocked in their"
                    + " poller").sample(t.getWaitNanos() / 1e9, l);
        }
        for (EndpointMetrics e : s.endpoints()) {
            String[] l = {"kind", e.getKind(), "address", e.getName()};
            counter(scrape, "conduit_managed_swaps_total", "swaps of the endpoint to another transport", e,
                    EndpointMetrics::getSwaps, l);
            counter(scrape, "conduit_managed_swaps_without_overlap_total", "swaps that closed the old listener before"
                    + " the new one was bound", e, EndpointMetrics::getSwapsWithoutOverlap, l);
            counter(scrape, "conduit_managed_swap_failures_total", "swaps that found no transport to bind on", e,
                    EndpointMetrics::getSwapFailures, l);
            counter(scrape, "conduit_managed_drains_total", "drains started: an old transport's connections told to"
                    + " finish", e, EndpointMetrics::getDrains, l);
            counter(scrape, "conduit_managed_drained_connections_total", "connections closed by a drain", e,
                    EndpointMetrics::getDrainedConnections, l);
            counter(scrape, "conduit_managed_drain_timeouts_total", "connections a drain closed at the grace period"
                    + " with writes pending", e, EndpointMetrics::getDrainTimeouts, l);
        }
        AllocatorMetrics a = s.allocator();
        String[] l = {"allocator", a.getName()};
        scrape.gauge("conduit_allocator_direct_used_bytes", "bytes of direct memory in buffers handed out now")
                .sample(a.getUsedDirectBytes(), l);
        scrape.gauge("conduit_allocator_direct_pooled_bytes", "bytes of direct memory the pool holds now, used or"
                + " free").sample(a.getPooledDirectBytes(), l);
        scrape.gauge("conduit_allocator_direct_max_bytes", "the cap on pooled direct memory, in bytes")
                .sample(a.getMaxDirectBytes(), l);
        scrape.gauge("conduit_allocator_chunks", "chunks the pool holds now").sample((long) a.getChunks(), l);
        scrape.counter("conduit_allocator_leak_reports_total", "buffers collected without their last release()")
                .sample(a.getLeakReports(), l);
    }

    private static <T> void counter(Exposition scrape, String name, String help, T metrics, ToLongFunction<T> value,
            String[] labels) {
        scrape.counter(name, help).sample(value.applyAsLong(metrics), labels);
    }
}
