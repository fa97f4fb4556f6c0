package io.conduit.gateway.internal.config;

import java.util.Map;

import io.conduit.gateway.internal.network.GatewayUri;
import io.conduit.gateway.services.GatewayServices;
import io.conduit.handler.proxy.ProxyProtocolDecoder;

/**
 * The validated configuration of one relay (factory PID {@value #FACTORY_PID}).
 *
 * <table>
 *   <caption>Properties</caption>
 *   <tr><th>key</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>{@code listen}</td><td>required</td><td>where clients connect: tcp, udp or unix URI</td></tr>
 *   <tr><td>{@code upstream}</td><td>required</td><td>where the relay connects for each client; TCP and Unix
 *       combine freely, UDP only with UDP</td></tr>
 *   <tr><td>{@code connect.timeout.ms}</td><td>10000</td><td>upstream connect timeout; the client is closed when
 *       it expires</td></tr>
 *   <tr><td>{@code write.buffer.low} / {@code write.buffer.high}</td><td>65536 / 262144</td><td>bytes queued on one
 *       side before the relay stops reading the other side (and resumes below low): the memory bound per
 *       direction of a connection</td></tr>
 *   <tr><td>{@code udp.idle.timeout.ms}</td><td>60000</td><td>a UDP session without traffic either way for this
 *       long is closed</td></tr>
 *   <tr><td>{@code udp.max.sessions}</td><td>1024</td><td>datagrams from further clients are dropped</td></tr>
 *   <tr><td>{@code udp.receive.buffer.bytes}</td><td>4194304</td><td>{@code SO_RCVBUF} of the UDP listening socket
 *       ({@link GatewayConfig#DEFAULT_UDP_RECEIVE_BUFFER_BYTES}); the kernel caps it at
 *       {@code net.core.rmem_max}</td></tr>
 *   <tr><td>{@code zeroCopy}</td><td>false</td><td>forward stream bytes inside the kernel where the transport can
 *       ({@link io.conduit.channel.ZeroCopyForwarding}: {@code splice(2)} on epoll and io_uring, TCP to TCP);
 *       other pairs and transports copy as usual</td></tr>
 *   <tr><td>{@code proxy.protocol.accept}</td><td>unset</td><td>{@code v1}, {@code v2} or {@code any}: clients
 *       start with a PROXY protocol header (behind a load balancer); the relay decodes it before connecting
 *       upstream, and logs the client's address from it. TCP and Unix relays only</td></tr>
 *   <tr><td>{@code proxy.protocol.send}</td><td>unset</td><td>{@code v1} or {@code v2}: the relay writes a PROXY
 *       header with the client's addresses to the upstream before the first byte. TCP and Unix relays only</td></tr>
 *   <tr><td>{@code idle.timeout.ms}</td><td>unset</td><td>a connection without a byte either way for this long is
 *       closed, both sides. TCP and Unix relays only</td></tr>
 *   <tr><td>{@code max.connections}</td><td>unset</td><td>connections open at once through the listener; further
 *       ones are accepted and closed. TCP and Unix relays only</td></tr>
 *   <tr><td>{@code rate.limit.bytes.per.second}</td><td>unset</td><td>bytes per second each connection reads on
 *       each side, by back-pressure. TCP and Unix relays only</td></tr>
 *   <tr><td>{@code tls.*}</td><td>unset</td><td>with {@code listen = tls://host:port} TLS is terminated, with
 *       {@code upstream = tls://host:port} it is originated; see {@link TlsConfig}. Not with {@code zeroCopy}</td></tr>
 *   <tr><td>{@code sni.routes}</td><td>unset</td><td>SNI routing without termination, e.g.
 *       {@code a.example=tcp://127.0.0.1:9001, b.example=unix:/run/b.sock}: each connection goes to the upstream of the
 *       server name in its ClientHello, bytes untouched; to {@code upstream} when the name is not listed or there is
 *       none. TCP and Unix relays without TLS of their own only</td></tr>
 * </table>
 *
 * <p>A key given with an empty value ({@code key =}) is refused like any other bad value
 * ({@link GatewayConfig#EMPTY_VALUE}); leave the line out for the default. The {@code udp.*} keys on a TCP or Unix
 * relay are one WARNING line and ignored ({@link GatewayConfig#warnWithoutEffect}); the stream-only keys on a UDP
 * relay are refused.
 *
 * @param name               configuration name for log lines ({@link GatewayConfig#name(Map)})
 * @param listen             listening endpoint
 * @param upstream           upstream endpoint
 * @param connectTimeoutMillis upstream connect timeout in milliseconds
 * @param writeBufferLowBytes  low water mark in bytes
 * @param writeBufferHighBytes high water mark in bytes
 * @param udpIdleTimeoutMillis UDP session idle expiry in milliseconds
 * @param udpMaxSessions     most concurrent UDP sessions
 * @param udpReceiveBufferBytes {@code SO_RCVBUF} of a UDP listening socket, in bytes
 * @param zeroCopy           forward with {@link io.conduit.channel.ZeroCopyForwarding} where the channels allow it
 * @param proxyAccept        the PROXY protocol versions clients send, or {@code null} when they send none
 * @param proxySendVersion   the PROXY protocol version written to the upstream, 1 or 2, or 0 for none
 * @param guards             idle timeout and connection limit of the listener
 * @param rateLimitBytesPerSecond bytes per second each side of a connection reads, or 0 for no limit
 * @param tls                the TLS contexts of the listener and the upstream ({@link TlsConfig#NONE} without TLS)
 * @param sniRoutes          upstreams by the lower-case server name of the client's ClientHello, in configuration
 *                           order; empty without SNI routing
 */
public record RelayConfig(String name, GatewayUri listen, GatewayUri upstream, int connectTimeoutMillis,
        int writeBufferLowBytes, int writeBufferHighBytes, int udpIdleTimeoutMillis, int udpMaxSessions,
        int udpReceiveBufferBytes, boolean zeroCopy, ProxyProtocolDecoder.Versions proxyAccept, int proxySendVersion,
        StreamGuards guards, int rateLimitBytesPerSecond, TlsConfig tls, Map<String, GatewayUri> sniRoutes) {

    /** Factory PID of relay configurations ({@code conf/io.conduit.gateway.relay-<name>.cfg}). */
    public static final String FACTORY_PID = GatewayServices.RELAY_FACTORY_PID;

    /** The keys a relay configuration takes; others (but the framework's own) are warned about and ignored. */
    public static final java.util.List<String> KEYS = keys();

    private static java.util.List<String> keys() {
        java.util.List<String> keys = new java.util.ArrayList<>(java.util.List.of("listen", "upstream",
                "connect.timeout.ms", "write.buffer.low", "write.buffer.high", "udp.idle.timeout.ms", "udp.max.sessions",
                GatewayConfig.UDP_RECEIVE_BUFFER_KEY, "zeroCopy", "proxy.protocol.accept", "proxy.protocol.send",
                StreamGuards.IDLE_TIMEOUT_KEY, StreamGuards.MAX_CONNECTIONS_KEY, "rate.limit.bytes.per.second", SNI_ROUTES_KEY));
        keys.addAll(TlsConfig.SERVER_KEYS);
        keys.addAll(TlsConfig.UPSTREAM_KEYS);
        return java.util.List.copyOf(keys);
    }

    /** The key of {@link #sniRoutes()}. */
    static final String SNI_ROUTES_KEY = "sni.routes";

    /** @return whether connections are routed by the server name of their ClientHello ({@code sni.routes}) */
    public boolean routesBySni() {
        return !sniRoutes.isEmpty();
    }

    /** @return every upstream the relay may connect to: {@link #upstream()}, then those of {@link #sniRoutes()} */
    public java.util.List<GatewayUri> upstreams() {
        java.util.List<GatewayUri> all = new java.util.ArrayList<>();
        all.add(upstream);
        all.addAll(sniRoutes.values());
        return all;
    }

    /** The values of {@code proxy.protocol.accept}. */
    static final java.util.List<String> PROXY_ACCEPT_VALUES = java.util.List.of("v1", "v2", "any");
    /** The values of {@code proxy.protocol.send}. */
    static final java.util.List<String> PROXY_SEND_VALUES = java.util.List.of("v1", "v2");
    /** The keys that only stream (TCP, Unix) relays take. */
    private static final java.util.List<String> STREAM_ONLY_KEYS = java.util.List.of("proxy.protocol.accept",
            "proxy.protocol.send", StreamGuards.IDLE_TIMEOUT_KEY, StreamGuards.MAX_CONNECTIONS_KEY,
            "rate.limit.bytes.per.second", SNI_ROUTES_KEY);

    /**
     * The keys that only UDP relays take; on a stream relay they are one WARNING line
     * ({@link GatewayConfig#warnWithoutEffect}), ignored like an unknown key.
     */
    static final java.util.List<String> UDP_ONLY_KEYS = java.util.List.of("udp.idle.timeout.ms", "udp.max.sessions",
            GatewayConfig.UDP_RECEIVE_BUFFER_KEY);

    /**
     * Validates a relay configuration.
     *
     * @param props the component properties
     * @return the configuration
     * @throws IllegalArgumentException naming the first problem found (after the unknown keys, if any); unknown keys
     *         alone are a WARNING line, not a failure; a singleton configuration (no {@code -<name>}) is refused
     */
    public static RelayConfig from(Map<String, ?> props) {
        GatewayConfig.requireFactoryConfiguration("relay", FACTORY_PID, props);
        return GatewayConfig.validated("relay", props, KEYS, () -> parse(props));
    }

    /**
     * @return whether connecting to {@code upstream} reaches the relay's own {@code listen} endpoint: the same Unix
     *         path or abstract name, or the same protocol and port at the listen address, or at an address of this
     *         host when the relay listens on the wildcard; {@code false} when the upstream's host does not resolve
     *         (the connect reports that)
     */
    public static boolean loopsBack(GatewayUri listen, GatewayUri upstream) {
        if (listen.kind() != upstream.kind()) {
            return false;
        }
        if (listen.kind() == GatewayUri.Kind.UNIX) {
            return listen.isAbstract() ? listen.abstractName().equals(upstream.abstractName())
                    : !upstream.isAbstract() && listen.path().toAbsolutePath().normalize()
                            .equals(upstream.path().toAbsolutePath().normalize());
        }
        if (listen.port() != upstream.port() || listen.port() == 0) {
            return false;
        }
        java.net.InetAddress at;
        java.net.InetAddress to;
        try {
            at = ((java.net.InetSocketAddress) listen.address()).getAddress();
            to = ((java.net.InetSocketAddress) upstream.address()).getAddress();
        } catch (IllegalArgumentException unresolved) {
            return false;
        }
        if (at.equals(to)) {
            return true;
        }
        if (!at.isAnyLocalAddress()) {
            return false;
        }
        try {
            return to.isAnyLocalAddress() || to.isLoopbackAddress() || java.net.NetworkInterface.getByInetAddress(to) != null;
        } catch (java.net.SocketException cannotTell) {
            return false;
        }
    }

    private static RelayConfig parse(Map<String, ?> props) {
        String name = GatewayConfig.name(props);
        GatewayUri listen = GatewayConfig.uri(props, "listen", "tcp://127.0.0.1:16379");
        GatewayUri upstream = GatewayConfig.uri(props, "upstream", "tcp://127.0.0.1:6379");
        if (listen.kind().isStream() != upstream.kind().isStream()) {
            throw new IllegalArgumentException("cannot relay " + listen + " to " + upstream
                    + ": stream endpoints (tcp, unix) relay to stream endpoints, udp only to udp");
        }
        if (loopsBack(listen, upstream)) {
            throw new IllegalArgumentException("cannot relay " + listen + " to " + upstream + ": the upstream is this "
                    + "relay's own listen address, so every connection would connect to the relay again until the "
                    + "gateway runs out of file descriptors; set 'upstream' to the address of the service to relay to");
        }
        int connectTimeout = GatewayConfig.intValue(props, "connect.timeout.ms", 10_000, 1);
        int low = GatewayConfig.intValue(props, "write.buffer.low", 64 * 1024, 0);
        int high = GatewayConfig.intValue(props, "write.buffer.high", 256 * 1024, 1);
        if (low > high) {
            throw new IllegalArgumentException("'write.buffer.low' = " + low + " is above 'write.buffer.high' = "
                    + high);
        }
        int idle = GatewayConfig.intValue(props, "udp.idle.timeout.ms", 60_000, 1);
        int maxSessions = GatewayConfig.intValue(props, "udp.max.sessions", 1024, 1);
        int receiveBuffer = GatewayConfig.udpReceiveBufferBytes(props);
        boolean zeroCopy = GatewayConfig.boolValue(props, "zeroCopy", false);
        String accept = GatewayConfig.choice(props, "proxy.protocol.accept", PROXY_ACCEPT_VALUES);
        String send = GatewayConfig.choice(props, "proxy.protocol.send", PROXY_SEND_VALUES);
        StreamGuards guards = StreamGuards.from(props);
        int rate = GatewayConfig.positiveOrOff(props, "rate.limit.bytes.per.second", 1_048_576);
        if (!listen.kind().isStream()) {
            for (String key : STREAM_ONLY_KEYS) {
                Object v = props.get(key);
                if (v != null && !v.toString().isBlank()) {
                    throw new IllegalArgumentException("'" + key + "' = '" + v + "' applies to TCP and Unix relays"
                            + " only, not to " + listen + "; remove it (UDP relays take 'udp.idle.timeout.ms',"
                            + " 'udp.max.sessions' and '" + GatewayConfig.UDP_RECEIVE_BUFFER_KEY + "')");
                }
            }
        }
        if (zeroCopy && (listen.tls() || upstream.tls())) {
            throw new IllegalArgumentException("'zeroCopy' = true cannot forward TLS: the bytes are encrypted or"
                    + " decrypted by the gateway, so they cannot move inside the kernel; remove 'zeroCopy'");
        }
        Map<String, GatewayUri> routes = sniRoutes(props, listen, upstream);
        TlsConfig tls = TlsConfig.from(props, java.util.List.of(listen), upstream);
        if (listen.kind().isStream()) {
            GatewayConfig.warnWithoutEffect("relay", props, UDP_ONLY_KEYS, "UDP endpoints", listen);
        }
        return new RelayConfig(name, listen, upstream, connectTimeout, low, high, idle, maxSessions, receiveBuffer,
                zeroCopy,
                accept == null ? null : ProxyProtocolDecoder.Versions.valueOf(accept.toUpperCase(java.util.Locale.ROOT)),
                send == null ? 0 : send.charAt(1) - '0', guards, rate, tls, routes);
    }

    /**
     * Parses {@code sni.routes}: {@code name=uri} pairs separated by commas and/or blanks; a name is exact or
     * {@code *.} and a domain (one label, as {@code SniMapping} of {@code io.conduit.handler.ssl}).
     *
     * @return the routes by lower-case name, in configuration order; empty when the key is unset
     * @throws IllegalArgumentException naming the pair and what is wrong with it
     */
    private static Map<String, GatewayUri> sniRoutes(Map<String, ?> props, GatewayUri listen, GatewayUri upstream) {
        Object v = props.get(SNI_ROUTES_KEY);
        if (v == null || v.toString().isBlank()) {
            return Map.of();
        }
        if (listen.tls() || upstream.tls()) {
            throw new IllegalArgumentException("'" + SNI_ROUTES_KEY + "' forwards the client's TLS bytes untouched, so"
                    + " neither 'listen' nor 'upstream' can be tls://; use tcp:// (or unix:) for both");
        }
        Map<String, GatewayUri> routes = new java.util.LinkedHashMap<>();
        for (String pair : v.toString().strip().split("[,\\s]+")) {
            int eq = pair.indexOf('=');
            String name = eq > 0 ? pair.substring(0, eq).toLowerCase(java.util.Locale.ROOT) : "";
            if (name.isEmpty() || eq == pair.length() - 1 || !name.matches("(\\*\\.)?[a-z0-9_-][a-z0-9._-]*")) {
                throw new IllegalArgumentException("'" + SNI_ROUTES_KEY + "' takes server-name=uri pairs separated by"
                        + " commas, a name exact or *.domain, e.g. a.example=tcp://127.0.0.1:9001,"
                        + " *.b.example=unix:/run/b.sock; got '" + pair + "'");
            }
            GatewayUri to;
            try {
                to = GatewayUri.parse(pair.substring(eq + 1));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("'" + SNI_ROUTES_KEY + "' " + name + ": " + e.getMessage(), e);
            }
            if (!to.kind().isStream() || to.tls()) {
                throw new IllegalArgumentException("'" + SNI_ROUTES_KEY + "' " + name + "=" + to + ": a route leads to"
                        + " a tcp:// or unix: endpoint, which gets the client's TLS bytes untouched");
            }
            if (loopsBack(listen, to)) {
                throw new IllegalArgumentException("'" + SNI_ROUTES_KEY + "' " + name + "=" + to + " is this relay's"
                        + " own listen address; route to the address of the service");
            }
            if (routes.put(name, to) != null) {
                throw new IllegalArgumentException("'" + SNI_ROUTES_KEY + "' names " + name + " twice; keep one route"
                        + " per server name");
            }
        }
        return java.util.Collections.unmodifiableMap(routes);
    }
}
