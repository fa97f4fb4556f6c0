package io.conduit.gateway.internal.metrics;

import java.util.ArrayList;
import java.util.Hashtable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.conduit.gateway.internal.network.GatewayUri;
import io.conduit.gateway.internal.network.Listeners;
import io.conduit.gateway.internal.status.Publication;
import io.conduit.gateway.services.GatewayServices;
import org.osgi.framework.BundleContext;

/**
 * The metrics of one echo or relay component: an {@link EndpointCounters} per listening endpoint, written by the
 * component's handlers, and the {@link MetricsCollector} service that puts them into each scrape with the endpoint's
 * state from its {@link Listeners}.
 *
 * <p>Every sample carries the labels {@code kind} ({@code echo}, {@code relay}), {@code config} (the configuration's
 * file name) and {@code listen} (the endpoint as configured); the upstream families of a relay also carry
 * {@code upstream}. All of them come from the configuration, so their number is bounded: nothing is labelled per client.
 *
 * <p>The service has the properties {@code conduit.gateway.kind} and {@code conduit.gateway.name} of the component's
 * status. Thread-safe: the endpoint map is guarded by {@code this}; the counters are read as {@link EndpointCounters}
 * says.
 */
public final class ComponentMetrics implements MetricsCollector {

    private final String kind;
    private final String config;
    /** A relay's upstream, or {@code null} for an echo. */
    private final GatewayUri upstream;
    private final Listeners listeners;
    /** The endpoints in configuration order; guarded by this. */
    private final Map<GatewayUri, EndpointCounters> endpoints = new LinkedHashMap<>();
    /** The {@link MetricsCollector} service. */
    private final Publication<MetricsCollector> publication = new Publication<>(MetricsCollector.class, this);

    /**
     * @param kind      {@code echo} or {@code relay}
     * @param config    the configuration's name, e.g. {@code io.conduit.gateway.echo-default.cfg}
     * @param upstream  a relay's upstream, or {@code null}
     * @param listeners the component's listeners, for each endpoint's state and transport
     */
    public ComponentMetrics(String kind, String config, GatewayUri upstream, Listeners listeners) {
        this.kind = kind;
        this.config = config;
        this.upstream = upstream;
        this.listeners = listeners;
    }

    /**
     * @param listen a listening endpoint of the component, as configured
     * @return its counters, made on the first call and kept across re-binds (a retry, a transport swap)
     */
    public synchronized EndpointCounters endpoint(GatewayUri listen) {
        return endpoints.computeIfAbsent(listen, l -> new EndpointCounters());
    }

    /** Registers this collector as a {@link MetricsCollector} service; ignored after {@link #unregister()}. */
    public void register(BundleContext context) {
        publication.publish(context, () -> {
            Hashtable<String, Object> props = new Hashtable<>();
            props.put(GatewayServices.STATUS_KIND, kind);
            props.put(GatewayServices.STATUS_NAME, config);
            return props;
        });
    }

    /** Withdraws the service; idempotent. */
    public void unregister() {
        publication.withdraw();
    }

    @Override
    public void collect(Exposition scrape) {
        Map<GatewayUri, EndpointCounters> now;
        synchronized (this) {
            now = new LinkedHashMap<>(endpoints);
        }
        Map<GatewayUri, String> transports = listeners.transportsNow();
        Families f = new Families(scrape, upstream != null);
        for (Map.Entry<GatewayUri, EndpointCounters> e : now.entrySet()) {
            GatewayUri listen = e.getKey();
            String[] labels = {"kind", kind, "config", config, "listen", listen.toString()};
            String transport = transports.get(listen);
            f.listening.sample(transport != null ? 1 : 0, labels);
            if (transport != null) {
                f.transport.sample(1, with(labels, "transport", transport));
            }
            EndpointCounters.Snapshot s = e.getValue().snapshot();
            f.open.sample(s.connectionsOpen(), labels);
            f.total.sample(s.connectionsTotal(), labels);
            f.clientReceived.sample(s.clientReceivedBytes(), labels);
            f.clientSent.sample(s.clientSentBytes(), labels);
            if (listen.kind() == GatewayUri.Kind.UDP) {
                f.datagramsReceived.sample(s.clientReceivedDatagrams(), labels);
                f.datagramsSent.sample(s.clientSentDatagrams(), labels);
            }
            if (listen.tls()) {
                tlsFailures(scrape).sample(s.clientTlsFailures(), with(labels, "side", "client"));
            }
            if (upstream != null) {
                String[] up = with(labels, "upstream", upstream.toString());
                f.upstreamReceived.sample(s.upstreamReceivedBytes(), up);
                f.upstreamSent.sample(s.upstreamSentBytes(), up);
                f.connectFailures.sample(s.connectFailures(), up);
                f.connectSeconds.histogramSample(s.connectBuckets(), s.connectSeconds(), up);
                if (upstream.tls()) {
                    tlsFailures(scrape).sample(s.upstreamTlsFailures(), with(up, "side", "upstream"));
                }
            }
        }
    }

    /** Declared only in scrapes with a TLS endpoint or upstream. */
    private static Exposition.Family tlsFailures(Exposition scrape) {
        return scrape.counter("conduit_gateway_tls_handshake_failures_total",
                "TLS handshakes that failed: with clients of a tls:// listener (side client), with a tls:// upstream"
                        + " (side upstream).");
    }

    private static String[] with(String[] labels, String name, String value) {
        List<String> l = new ArrayList<>(List.of(labels));
        l.add(name);
        l.add(value);
        return l.toArray(new String[0]);
    }

    /** The gateway's endpoint families, declared in one place so every component declares them alike. */
    private static final class Families {
        final Exposition.Family listening;
        final Exposition.Family transport;
        final Exposition.Family open;
        final Exposition.Family total;
        final Exposition.Family clientReceived;
        final Exposition.Family clientSent;
        final Exposition.Family datagramsReceived;
        final Exposition.Family datagramsSent;
        final Exposition.Family upstreamReceived;
        final Exposition.Family upstreamSent;
        final Exposition.Family connectFailures;
        final Exposition.Family connectSeconds;

        Families(Exposition x, boolean relay) {
            listening = x.gauge("conduit_gateway_endpoint_listening",
                    "1 while the endpoint listens (TCP, Unix) or is bound (UDP), else 0.");
            transport = x.gauge("conduit_gateway_endpoint_transport_info",
                    "The transport the endpoint is bound on now, in label transport; always 1.");
            open = x.gauge("conduit_gateway_connections_open",
                    "Client connections open now (TCP, Unix); for a UDP relay, client sessions.");
            total = x.counter("conduit_gateway_connections_total",
                    "Client connections accepted (TCP, Unix); for a UDP relay, client sessions started.");
            clientReceived = x.counter("conduit_gateway_client_received_bytes_total",
                    "Bytes received from clients.");
            clientSent = x.counter("conduit_gateway_client_sent_bytes_total",
                    "Bytes sent to clients (handed to their connection or datagram socket).");
            datagramsReceived = x.counter("conduit_gateway_client_received_datagrams_total",
                    "UDP datagrams received from clients.");
            datagramsSent = x.counter("conduit_gateway_client_sent_datagrams_total",
                    "UDP datagrams sent to clients.");
            if (relay) {
                upstreamReceived = x.counter("conduit_gateway_upstream_received_bytes_total",
                        "Bytes a relay received from its upstream.");
                upstreamSent = x.counter("conduit_gateway_upstream_sent_bytes_total",
                        "Bytes a relay sent to its upstream, PROXY protocol headers included.");
                connectFailures = x.counter("conduit_gateway_upstream_connect_failures_total",
                        "Upstream connects of a relay that failed (refused, timed out, or could not start).");
                connectSeconds = x.histogram("conduit_gateway_upstream_connect_duration_seconds",
                        "Time a relay's successful upstream connects took, in seconds.",
                        EndpointCounters.CONNECT_SECONDS_BOUNDS);
            } else {
                upstreamReceived = null;
                upstreamSent = null;
                connectFailures = null;
                connectSeconds = null;
            }
        }
    }
}
