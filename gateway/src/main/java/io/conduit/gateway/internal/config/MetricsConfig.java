package io.conduit.gateway.internal.config;

import java.util.List;
import java.util.Map;

import io.conduit.gateway.internal.network.GatewayUri;
import io.conduit.gateway.services.GatewayServices;

/**
 * The validated configuration of the gateway's metrics endpoint (PID {@value #PID}, one configuration:
 * {@code conf/io.conduit.gateway.metrics.cfg}).
 *
 * <p>Property {@code listen}: one TCP or Unix endpoint on which the gateway answers {@code GET /metrics} and
 * {@code GET /health}; unset or blank turns the endpoint off. {@code max.connections} (default
 * {@value #DEFAULT_MAX_CONNECTIONS}) and {@code idle.timeout.ms} (default {@value #DEFAULT_IDLE_TIMEOUT_MILLIS}) as
 * {@link StreamGuards} says.
 *
 * @param name   configuration name for log lines
 * @param listen the endpoint, or {@code null} when the metrics endpoint is off
 * @param guards its connection limit and idle timeout
 */
public record MetricsConfig(String name, GatewayUri listen, StreamGuards guards) {

    /** Connections the metrics endpoint holds at once when {@code max.connections} is not set. */
    public static final int DEFAULT_MAX_CONNECTIONS = 64;
    /** When {@code idle.timeout.ms} is not set: an idle connection of the metrics endpoint closes after 60 s. */
    public static final int DEFAULT_IDLE_TIMEOUT_MILLIS = 60_000;

    /** PID of the metrics endpoint's configuration. */
    public static final String PID = GatewayServices.METRICS_PID;

    /** The keys the configuration takes; others (but the framework's own) are warned about and ignored. */
    public static final List<String> KEYS = List.of("listen", StreamGuards.MAX_CONNECTIONS_KEY,
            StreamGuards.IDLE_TIMEOUT_KEY);

    /**
     * Validates the configuration.
     *
     * @throws IllegalArgumentException for a factory configuration ({@code io.conduit.gateway.metrics-x.cfg}: there is
     *         one metrics endpoint), a malformed {@code listen}, a UDP one, or more than one endpoint
     */
    public static MetricsConfig from(Map<String, ?> props) {
        if (props.get("service.factoryPid") != null) {
            String file = GatewayConfig.name(props);
            throw new IllegalArgumentException(file + " is a factory configuration, but there is one metrics endpoint:"
                    + " name the file " + PID + ".cfg");
        }
        return GatewayConfig.validated("metrics", props, KEYS, () -> {
            Object v = props.get("listen");
            StreamGuards set = StreamGuards.from(props);
            StreamGuards guards = new StreamGuards(props.get(StreamGuards.IDLE_TIMEOUT_KEY) == null
                    ? DEFAULT_IDLE_TIMEOUT_MILLIS : set.idleTimeoutMillis(),
                    props.get(StreamGuards.MAX_CONNECTIONS_KEY) == null ? DEFAULT_MAX_CONNECTIONS : set.maxConnections());
            if (v == null || v.toString().isBlank()) {
                return new MetricsConfig(GatewayConfig.name(props), null, guards);
            }
            List<GatewayUri> listen = GatewayConfig.uris(props, "listen", "tcp://127.0.0.1:9464");
            if (listen.size() != 1) {
                throw new IllegalArgumentException("'listen' names " + listen.size() + " endpoints; the metrics "
                        + "endpoint listens on one (e.g. listen = tcp://127.0.0.1:9464)");
            }
            GatewayUri uri = listen.get(0);
            if (!uri.kind().isStream()) {
                throw new IllegalArgumentException("'listen' = " + uri + ": the metrics endpoint speaks HTTP, over "
                        + "tcp:// or unix: (e.g. listen = tcp://127.0.0.1:9464)");
            }
            return new MetricsConfig(GatewayConfig.name(props), uri, guards);
        });
    }
}
