package io.conduit.gateway.internal.config;

import java.util.List;
import java.util.Map;

import io.conduit.gateway.internal.network.GatewayUri;
import io.conduit.gateway.services.GatewayServices;

/**
 * The validated configuration of one echo service (factory PID {@value #FACTORY_PID}).
 *
 * <p>Property {@code listen}: one or more tcp, udp or unix URIs separated by commas or blanks (required).
 * {@code idle.timeout.ms} and {@code max.connections} apply to its stream (TCP, Unix) endpoints, as
 * {@link StreamGuards} says; the limit counts per endpoint. {@value GatewayConfig#UDP_RECEIVE_BUFFER_KEY} is
 * the {@code SO_RCVBUF} of its UDP endpoints ({@link GatewayConfig#udpReceiveBufferBytes}). A
 * {@code tls://host:port} endpoint terminates TLS and echoes the plain bytes, with the {@code tls.*} keys of {@link TlsConfig} (the same for every such endpoint).
 * A key with an empty value is refused ({@link GatewayConfig#EMPTY_VALUE}); a UDP key on an echo without UDP
 * endpoints, or a stream key on one with only UDP endpoints, is one WARNING line and ignored
 * ({@link GatewayConfig#warnWithoutEffect}).
 *
 * @param name   configuration name for log lines
 * @param listen the endpoints, in configuration order
 * @param guards idle timeout and connection limit of the stream endpoints
 * @param udpReceiveBufferBytes {@code SO_RCVBUF} of the UDP endpoints' sockets, in bytes
 * @param tls    the TLS context of the {@code tls://} endpoints ({@link TlsConfig#NONE} without them)
 */
public record EchoConfig(String name, List<GatewayUri> listen, StreamGuards guards, int udpReceiveBufferBytes,
        TlsConfig tls) {

    /** Factory PID of echo configurations ({@code conf/io.conduit.gateway.echo-<name>.cfg}). */
    public static final String FACTORY_PID = GatewayServices.ECHO_FACTORY_PID;

    /** The keys an echo configuration takes; others (but the framework's own) are warned about and ignored. */
    public static final List<String> KEYS = keys();

    private static List<String> keys() {
        List<String> keys = new java.util.ArrayList<>(List.of("listen", StreamGuards.IDLE_TIMEOUT_KEY,
                StreamGuards.MAX_CONNECTIONS_KEY, GatewayConfig.UDP_RECEIVE_BUFFER_KEY));
        keys.addAll(TlsConfig.SERVER_KEYS);
        return List.copyOf(keys);
    }

    /**
     * Validates an echo configuration.
     *
     * @throws IllegalArgumentException naming the first problem found (after the unknown keys, if any); unknown keys
     *         alone are a WARNING line, not a failure; a singleton configuration (no {@code -<name>}) is refused
     */
    public static EchoConfig from(Map<String, ?> props) {
        GatewayConfig.requireFactoryConfiguration("echo", FACTORY_PID, props);
        return GatewayConfig.validated("echo", props, KEYS, () -> {
            List<GatewayUri> listen = GatewayConfig.uris(props, "listen", "tcp://127.0.0.1:7007, udp://127.0.0.1:7007");
            StreamGuards guards = StreamGuards.from(props);
            int receiveBuffer = GatewayConfig.udpReceiveBufferBytes(props);
            EchoConfig echo = new EchoConfig(GatewayConfig.name(props), listen, guards, receiveBuffer,
                    TlsConfig.from(props, listen, null));
            echo.warnAboutKeysWithoutEffect(props);
            return echo;
        });
    }

    /** The keys that act on an echo's UDP endpoints only. */
    static final List<String> UDP_ONLY_KEYS = List.of(GatewayConfig.UDP_RECEIVE_BUFFER_KEY);
    /** The keys that act on an echo's stream (TCP, TLS, Unix) endpoints only. */
    static final List<String> STREAM_ONLY_KEYS = List.of(StreamGuards.IDLE_TIMEOUT_KEY,
            StreamGuards.MAX_CONNECTIONS_KEY);

    /**
     * One WARNING line ({@link GatewayConfig#warnWithoutEffect}) for UDP keys when no endpoint is UDP, one for the
     * stream keys when every endpoint is UDP.
     */
    private void warnAboutKeysWithoutEffect(Map<String, ?> props) {
        String endpoints = String.join(", ", listen.stream().map(GatewayUri::toString).toList());
        if (listen.stream().noneMatch(u -> u.kind() == GatewayUri.Kind.UDP)) {
            GatewayConfig.warnWithoutEffect("echo", props, UDP_ONLY_KEYS, "UDP endpoints", endpoints);
        }
        if (listen.stream().noneMatch(u -> u.kind().isStream())) {
            GatewayConfig.warnWithoutEffect("echo", props, STREAM_ONLY_KEYS, "TCP, TLS and Unix endpoints", endpoints);
        }
    }
}
