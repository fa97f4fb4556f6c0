package io.conduit.gateway.internal.config;

import java.net.URI;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.conduit.gateway.internal.network.GatewayUri;
import io.conduit.handler.ssl.ClientAuth;
import io.conduit.handler.ssl.TlsConfigException;
import io.conduit.handler.ssl.TlsContext;
import io.conduit.handler.ssl.TlsContextSource;

/**
 * The TLS keys of an echo or relay configuration, validated, with the contexts they build. A {@code tls://} listen
 * endpoint terminates TLS with {@link #server()}; a relay's {@code tls://} upstream is reached with
 * {@link #upstream()}.
 *
 * <table>
 *   <caption>Properties</caption>
 *   <tr><th>key</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>{@code tls.cert}</td><td>required with a {@code tls://} listen endpoint</td><td>PEM certificate chain,
 *       the gateway's certificate first</td></tr>
 *   <tr><td>{@code tls.key}</td><td>required with {@code tls.cert}</td><td>PEM private key (PKCS#8, PKCS#1 or SEC1,
 *       encrypted or not)</td></tr>
 *   <tr><td>{@code tls.key.password}</td><td>unset</td><td>the password of an encrypted key</td></tr>
 *   <tr><td>{@code tls.ca}</td><td>unset</td><td>PEM CA certificates that client certificates chain to</td></tr>
 *   <tr><td>{@code tls.clientAuth}</td><td>{@code none}</td><td>{@code none}, {@code optional} or {@code required}
 *       (mutual TLS; needs {@code tls.ca})</td></tr>
 *   <tr><td>{@code tls.protocols}</td><td>{@code TLSv1.3, TLSv1.2}</td><td>the protocols, in preference order</td></tr>
 *   <tr><td>{@code tls.ciphers}</td><td>the JVM's</td><td>cipher suites, JSSE names</td></tr>
 *   <tr><td>{@code tls.alpn}</td><td>off</td><td>ALPN protocols in preference order, e.g. {@code h2, http/1.1}</td></tr>
 *   <tr><td>{@code tls.upstream.ca}</td><td>the JVM's CA certificates</td><td>PEM CA certificates the upstream's
 *       certificate chains to</td></tr>
 *   <tr><td>{@code tls.upstream.serverName}</td><td>the upstream's host</td><td>the name sent as SNI and verified
 *       against the upstream's certificate</td></tr>
 *   <tr><td>{@code tls.upstream.cert} / {@code tls.upstream.key} / {@code tls.upstream.key.password}</td>
 *       <td>unset</td><td>the gateway's client certificate for mutual TLS with the upstream</td></tr>
 *   <tr><td>{@code tls.expiry.warning.days}</td><td>30</td><td>one WARNING when a certificate of the gateway expires
 *       within this many days</td></tr>
 * </table>
 *
 * <p>A relative file path is taken relative to the directory of the configuration file (the gateway's {@code conf/}).
 * Every file is read and checked when the configuration is validated: a missing file, a key that does not match its
 * certificate, a wrong password or an expired certificate is a configuration error naming the file. Later the files
 * are followed ({@link TlsContextSource}, checked at most every {@value #CHECK_INTERVAL_SECONDS} s when connections
 * come): renewed certificates are used by new handshakes without a restart.
 *
 * @param server             the contexts of the {@code tls://} listen endpoints, or {@code null} when there is none
 * @param upstream           the contexts of a relay's {@code tls://} upstream, or {@code null}
 * @param upstreamServerName the host name the upstream's certificate must name (sent as SNI unless it is an IP
 *                           address), or {@code null} without a TLS upstream
 */
public record TlsConfig(TlsContextSource server, TlsContextSource upstream, String upstreamServerName) {

    /** The key of the days before expiry that a certificate is warned about, for either side. */
    static final String EXPIRY_WARNING_KEY = "tls.expiry.warning.days";

    /** How often the files are looked at, at most, in seconds. */
    static final int CHECK_INTERVAL_SECONDS = 5;

    /** No TLS on either side. */
    public static final TlsConfig NONE = new TlsConfig(null, null, null);

    /** The keys of a TLS listen endpoint only. */
    private static final List<String> LISTEN_KEYS = List.of("tls.cert", "tls.key", "tls.key.password", "tls.ca",
            "tls.clientAuth", "tls.protocols", "tls.ciphers", "tls.alpn");
    /** The keys an echo configuration takes for TLS. */
    static final List<String> SERVER_KEYS = java.util.stream.Stream.concat(LISTEN_KEYS.stream(),
            java.util.stream.Stream.of(EXPIRY_WARNING_KEY)).toList();
    /** The keys of a relay's TLS upstream. */
    static final List<String> UPSTREAM_KEYS = List.of("tls.upstream.ca", "tls.upstream.serverName",
            "tls.upstream.cert", "tls.upstream.key", "tls.upstream.key.password");
    /** The values of {@code tls.clientAuth}. */
    private static final List<String> CLIENT_AUTH_VALUES = List.of("none", "optional", "required");

    /**
     * Validates the TLS keys and builds the contexts (reads the files).
     *
     * @param listen   the configuration's listen endpoints
     * @param upstream a relay's upstream, or {@code null} for an echo configuration
     * @return the contexts, {@link #NONE} when no endpoint is {@code tls://}
     * @throws IllegalArgumentException naming the key or the file and what to do
     */
    static TlsConfig from(Map<String, ?> props, List<GatewayUri> listen, GatewayUri upstream) {
        GatewayUri tlsListen = listen.stream().filter(GatewayUri::tls).findFirst().orElse(null);
        TlsContextSource server = null;
        if (tlsListen != null) {
            server = server(props, tlsListen);
        } else {
            requireUnset(props, LISTEN_KEYS, "no endpoint of 'listen' is tls://host:port");
        }
        TlsContextSource client = null;
        String serverName = null;
        if (upstream != null && upstream.tls()) {
            serverName = text(props, "tls.upstream.serverName");
            if (serverName == null) {
                serverName = upstream.host();
            }
            client = upstream(props, upstream);
        } else {
            requireUnset(props, UPSTREAM_KEYS, "'upstream' is not tls://host:port");
        }
        if (server == null && client == null) {
            requireUnset(props, List.of(EXPIRY_WARNING_KEY), "no endpoint is tls://host:port");
            return NONE;
        }
        return new TlsConfig(server, client, serverName);
    }

    /**
     * @return for a status line, the server certificate's subject and expiry, e.g.
     *         {@code certificate CN=gateway.example, expires 2027-12-06T06:00:00Z}; {@code null} without a TLS listener
     */
    public String certificateSummary() {
        if (server == null || server.current().certificateChain().isEmpty()) {
            return null;
        }
        X509Certificate c = server.current().certificateChain().get(0);
        return "certificate " + c.getSubjectX500Principal().getName() + ", expires " + c.getNotAfter().toInstant();
    }

    /**
     * @return {@link #certificateSummary()} in parentheses after a blank, for a status line; {@code ""} without a TLS
     *         listener. Read at each call: after the files were reloaded, the new certificate
     */
    public String certificateShown() {
        String summary = certificateSummary();
        return summary == null ? "" : " (" + summary + ")";
    }

    private static TlsContextSource server(Map<String, ?> props, GatewayUri endpoint) {
        Path cert = path(props, "tls.cert");
        Path key = path(props, "tls.key");
        if (cert == null || key == null) {
            throw new IllegalArgumentException("listen " + endpoint + " needs 'tls.cert' (PEM certificate chain) and"
                    + " 'tls.key' (its private key), e.g. tls.cert = gateway.pem and tls.key = gateway.key");
        }
        String auth = GatewayConfig.choice(props, "tls.clientAuth", CLIENT_AUTH_VALUES);
        ClientAuth clientAuth = auth == null ? ClientAuth.NONE : ClientAuth.valueOf(auth.toUpperCase(Locale.ROOT));
        Path ca = path(props, "tls.ca");
        if (clientAuth != ClientAuth.NONE && ca == null) {
            throw new IllegalArgumentException("'tls.clientAuth' = " + auth + " needs 'tls.ca', the PEM file of the CA"
                    + " certificates that client certificates chain to");
        }
        TlsContext.Builder b = TlsContext.forServer(cert, key, password(props, "tls.key.password"))
                .clientAuth(clientAuth);
        if (ca != null) {
            b.trust(ca);
        }
        List<String> protocols = list(props, "tls.protocols");
        if (!protocols.isEmpty()) {
            b.protocols(protocols.toArray(String[]::new));
        }
        List<String> ciphers = list(props, "tls.ciphers");
        if (!ciphers.isEmpty()) {
            b.cipherSuites(ciphers.toArray(String[]::new));
        }
        List<String> alpn = list(props, "tls.alpn");
        if (!alpn.isEmpty()) {
            b.alpn(alpn.toArray(String[]::new));
        }
        return build(b, props, "listen " + endpoint);
    }

    private static TlsContextSource upstream(Map<String, ?> props, GatewayUri endpoint) {
        TlsContext.Builder b = TlsContext.forClient();
        Path ca = path(props, "tls.upstream.ca");
        if (ca != null) {
            b.trust(ca);
        }
        Path cert = path(props, "tls.upstream.cert");
        Path key = path(props, "tls.upstream.key");
        if ((cert == null) != (key == null)) {
            throw new IllegalArgumentException("mutual TLS with the upstream needs both 'tls.upstream.cert' and"
                    + " 'tls.upstream.key'; set the missing one");
        }
        if (cert != null) {
            b.certificate(cert, key, password(props, "tls.upstream.key.password"));
        }
        // The relay writes the line of a failed upstream handshake, naming its file and the key to fix; the TLS
        // handler's own line (the JDK's words) stays at DEBUG.
        b.failureLog(new io.conduit.handler.logging.RateLimitedLog(
                System.getLogger(io.conduit.handler.ssl.TlsHandler.class.getName()), System.Logger.Level.DEBUG));
        return build(b, props, "upstream " + endpoint);
    }

    private static TlsContextSource build(TlsContext.Builder b, Map<String, ?> props, String what) {
        int warningDays = GatewayConfig.intValue(props, "tls.expiry.warning.days", 30, 0);
        try {
            return TlsContextSource.of(b, java.time.Duration.ofSeconds(CHECK_INTERVAL_SECONDS),
                    java.time.Duration.ofDays(warningDays));
        } catch (TlsConfigException e) {
            throw new IllegalArgumentException("TLS of " + what + ": " + e.getMessage(), e);
        }
    }

    private static void requireUnset(Map<String, ?> props, List<String> keys, String because) {
        for (String key : keys) {
            if (text(props, key) != null) {
                throw new IllegalArgumentException("'" + key + "' is set but " + because + "; remove it, or use a"
                        + " tls:// endpoint");
            }
        }
    }

    private static String text(Map<String, ?> props, String key) {
        Object v = props.get(key);
        return v == null || v.toString().isBlank() ? null : v.toString().strip();
    }

    private static char[] password(Map<String, ?> props, String key) {
        Object v = props.get(key);
        return v == null || v.toString().isEmpty() ? null : v.toString().toCharArray();
    }

    /** @return the words of a list value, separated by commas and/or blanks; empty when unset */
    private static List<String> list(Map<String, ?> props, String key) {
        String v = text(props, key);
        List<String> words = new ArrayList<>();
        if (v != null) {
            for (String w : v.split("[,\\s]+")) {
                if (!w.isEmpty()) {
                    words.add(w);
                }
            }
        }
        return words;
    }

    /**
     * @return the file a key names, a relative path taken relative to the directory of the configuration file
     *         (FileInstall's {@code felix.fileinstall.filename}), else to the working directory; {@code null} when unset
     */
    static Path path(Map<String, ?> props, String key) {
        String v = text(props, key);
        if (v == null) {
            return null;
        }
        Path p;
        try {
            p = Path.of(v);
        } catch (java.nio.file.InvalidPathException e) {
            throw new IllegalArgumentException("'" + key + "' = '" + v + "' is not a file path: " + e.getMessage());
        }
        if (p.isAbsolute()) {
            return p;
        }
        Path dir = configurationDirectory(props);
        return dir != null ? dir.resolve(p) : p.toAbsolutePath();
    }

    /** @return the directory of the configuration's file, or {@code null} when it did not come from a file */
    private static Path configurationDirectory(Map<String, ?> props) {
        Object file = props.get("felix.fileinstall.filename");
        if (file == null) {
            return null;
        }
        String f = file.toString();
        try {
            Path p = f.startsWith("file:") ? Path.of(URI.create(f)) : Path.of(f);
            return p.toAbsolutePath().getParent();
        } catch (IllegalArgumentException | java.nio.file.FileSystemNotFoundException notAFile) {
            return null;
        }
    }
}
