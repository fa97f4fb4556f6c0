package io.conduit.gateway.internal.network;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Objects;

import io.conduit.channel.UnixAbstractAddress;
import io.conduit.transport.ChannelType;
import io.conduit.transport.Transport;

/**
 * One endpoint of the gateway configuration, parsed from its URI form:
 *
 * <ul>
 *   <li>{@code tcp://host:port} and {@code udp://host:port} — host is a name, an IPv4 literal or a bracketed IPv6
 *       literal ({@code tcp://[::1]:7007}); port {@code 0..65535} ({@code 0} = any free port, listen side only);</li>
 *   <li>{@code tls://host:port} — a TCP endpoint whose bytes are TLS: a listener terminates it, a relay's upstream
 *       originates it (kind {@link Kind#TCP}, {@link #tls()} true);</li>
 *   <li>{@code unix:/absolute/path} — a Unix domain stream socket bound to a file (the path must be absolute and at
 *       most {@value #MAX_UNIX_PATH_BYTES} bytes, the size of {@code sun_path} in Linux's {@code struct sockaddr_un}
 *       minus the terminating NUL);</li>
 *   <li>{@code unix:@name} — a Linux abstract Unix socket name (no file is created or removed; see unix(7)), the
 *       bytes after {@code @} as UTF-8, at most {@value #MAX_UNIX_PATH_BYTES} bytes. It maps to a
 *       {@link UnixAbstractAddress}, which only the epoll and io_uring transports bind and
 *       connects; {@link #toSocketAddress(String)} fails with a clear configuration error on any other.</li>
 * </ul>
 *
 * <p>Immutable and thread-safe. {@link #toString()} gives the canonical form, used in log lines and the banner.
 *
 * @param kind       TCP, UDP or UNIX
 * @param host       host of TCP/UDP endpoints, {@code null} for UNIX
 * @param port       port of TCP/UDP endpoints, {@code -1} for UNIX
 * @param path       file of a path-bound UNIX endpoint, {@code null} otherwise
 * @param abstractName abstract name (without the {@code @}) of an abstract UNIX endpoint, {@code null} otherwise
 * @param tls        whether the endpoint speaks TLS ({@code tls://}, always of kind TCP)
 */
public record GatewayUri(Kind kind, String host, int port, Path path, String abstractName, boolean tls) {

    /** The transport suggested for Linux abstract Unix names ({@link UnixAbstractAddress}). */
    public static final String ABSTRACT_NAME_TRANSPORT = "epoll";
    /** The transports that bind and connect Linux abstract Unix names. */
    public static final java.util.List<String> ABSTRACT_NAME_TRANSPORTS = java.util.List.of("epoll", "io_uring");
    /** How a message names them. */
    private static final String ABSTRACT_NAME_TRANSPORTS_TEXT = "the epoll or io_uring transport";

    /** {@code sizeof(sun_path) - 1} on Linux ({@code char sun_path[108]}). */
    public static final int MAX_UNIX_PATH_BYTES = 107;

    /** The endpoint families the gateway speaks. */
    public enum Kind {
        /** TCP stream socket. */
        TCP,
        /** UDP datagram socket. */
        UDP,
        /** Unix domain stream socket (path or abstract name). */
        UNIX;

        /** @return {@code true} for byte streams (TCP, Unix), which the relay may combine freely */
        public boolean isStream() {
            return this != UDP;
        }
    }

    public GatewayUri {
        Objects.requireNonNull(kind, "kind");
        if (tls && kind != Kind.TCP) {
            throw new IllegalArgumentException("TLS runs over TCP only, not " + kind);
        }
    }

    /** An endpoint without TLS. */
    public GatewayUri(Kind kind, String host, int port, Path path, String abstractName) {
        this(kind, host, port, path, abstractName, false);
    }

    /**
     * Parses one endpoint URI.
     *
     * @param text the URI, surrounding blanks ignored
     * @return the endpoint
     * @throws IllegalArgumentException naming the text and what is wrong with it, e.g.
     *         {@code "tcp://127.0.0.1:70000": port 70000 is out of range 0..65535}, or saying how many URIs it got
     *         when the text holds several separated by commas
     */
    public static GatewayUri parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("empty endpoint URI; expected tcp://host:port, udp://host:port, "
                    + "tls://host:port, unix:/path or unix:@name");
        }
        String s = text.strip();
        if (s.indexOf(',') >= 0) {
            String[] parts = s.split("\\s*,\\s*", -1);
            throw new IllegalArgumentException("takes one endpoint URI; got " + parts.length + ": " + s
                    + " (a relay listens on one endpoint and connects to one: use one relay configuration per "
                    + "endpoint)");
        }
        int colon = s.indexOf(':');
        if (colon <= 0) {
            throw bad(s, "no scheme; expected tcp://host:port, udp://host:port, tls://host:port, unix:/path or unix:@name");
        }
        String scheme = s.substring(0, colon).toLowerCase(Locale.ROOT);
        String rest = s.substring(colon + 1);
        switch (scheme) {
            case "tcp":
                return inet(Kind.TCP, scheme, s, rest);
            case "tls":
                GatewayUri plain = inet(Kind.TCP, scheme, s, rest);
                return new GatewayUri(Kind.TCP, plain.host(), plain.port(), null, null, true);
            case "udp":
                return inet(Kind.UDP, scheme, s, rest);
            case "unix":
                return unix(s, rest);
            default:
                throw bad(s, "unknown scheme '" + scheme + "'; expected tcp, udp, tls or unix");
        }
    }

    private static GatewayUri inet(Kind kind, String scheme, String s, String rest) {
        if (!rest.startsWith("//")) {
            throw bad(s, "expected " + scheme + "://host:port");
        }
        String authority = rest.substring(2);
        if (authority.endsWith("/")) {
            authority = authority.substring(0, authority.length() - 1);
        }
        if (authority.indexOf('/') >= 0 || authority.indexOf('?') >= 0 || authority.indexOf('#') >= 0) {
            throw bad(s, "a " + scheme + " endpoint takes no path, query or fragment");
        }
        String host;
        String portText;
        if (authority.startsWith("[")) {
            int close = authority.indexOf(']');
            if (close < 0) {
                throw bad(s, "unterminated IPv6 literal (missing ']')");
            }
            host = authority.substring(1, close);
            String after = authority.substring(close + 1);
            if (!after.startsWith(":")) {
                throw bad(s, "missing port after the IPv6 literal; expected [addr]:port");
            }
            portText = after.substring(1);
        } else {
            int c = authority.lastIndexOf(':');
            if (c < 0) {
                throw bad(s, "missing port; expected host:port");
            }
            host = authority.substring(0, c);
            if (host.indexOf(':') >= 0) {
                throw bad(s, "an IPv6 literal must be in brackets, e.g. [::1]:7007");
            }
            portText = authority.substring(c + 1);
        }
        if (host.isEmpty()) {
            throw bad(s, "missing host; use 0.0.0.0 (or [::]) to listen on every address");
        }
        int port;
        try {
            port = Integer.parseInt(portText);
        } catch (NumberFormatException e) {
            throw bad(s, "port '" + portText + "' is not a number");
        }
        if (port < 0 || port > 65535) {
            throw bad(s, "port " + port + " is out of range 0..65535");
        }
        return new GatewayUri(kind, host, port, null, null);
    }

    private static GatewayUri unix(String s, String rest) {
        if (rest.startsWith("//")) {
            throw bad(s, "write unix:/absolute/path (one slash), not unix://");
        }
        if (rest.startsWith("@")) {
            String name = rest.substring(1);
            if (name.isEmpty()) {
                throw bad(s, "empty abstract socket name after '@'");
            }
            if (name.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > MAX_UNIX_PATH_BYTES) {
                throw bad(s, "abstract name longer than " + MAX_UNIX_PATH_BYTES + " bytes");
            }
            return new GatewayUri(Kind.UNIX, null, -1, null, name);
        }
        if (!rest.startsWith("/")) {
            throw bad(s, "a Unix socket path must be absolute (unix:/path) or an abstract name (unix:@name)");
        }
        int bytes = rest.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
        if (bytes > MAX_UNIX_PATH_BYTES) {
            throw bad(s, "path is " + bytes + " bytes, longer than the " + MAX_UNIX_PATH_BYTES
                    + " bytes a Unix socket address holds; choose a shorter path");
        }
        Path path;
        try {
            path = Path.of(rest);
        } catch (InvalidPathException e) {
            throw bad(s, "invalid path: " + e.getMessage());
        }
        return new GatewayUri(Kind.UNIX, null, -1, path, null);
    }

    private static IllegalArgumentException bad(String text, String why) {
        return new IllegalArgumentException("\"" + text + "\": " + why);
    }

    /** @return the channel type a listener or client of this endpoint uses */
    public ChannelType channelType() {
        switch (kind) {
            case TCP:
                return ChannelType.TCP;
            case UDP:
                return ChannelType.UDP;
            default:
                return ChannelType.UNIX_STREAM;
        }
    }

    /** @return {@code true} for an abstract Unix name ({@code unix:@name}) */
    public boolean isAbstract() {
        return abstractName != null;
    }

    /**
     * The socket address to bind or connect to. TCP/UDP host names are resolved here (blocking DNS lookup).
     *
     * @param transportName the transport that will bind or connect, named in the error
     * @return an {@link InetSocketAddress}, a {@link UnixDomainSocketAddress} ({@code unix:/path}) or a
     *         {@link UnixAbstractAddress} ({@code unix:@name})
     * @throws UnsupportedOperationException for an abstract Unix name when {@code transportName} is neither epoll
     *         nor io_uring (abstract names are Linux-only; {@code nio} and {@code kqueue}
     *         cannot bind or connect them)
     * @throws IllegalArgumentException when the host name does not resolve
     */
    public SocketAddress toSocketAddress(String transportName) {
        switch (kind) {
            case TCP:
            case UDP:
                InetSocketAddress a = new InetSocketAddress(host, port);
                if (a.isUnresolved()) {
                    throw new IllegalArgumentException("\"" + this + "\": host '" + host + "' does not resolve");
                }
                return a;
            default:
                if (abstractName != null) {
                    if (!ABSTRACT_NAME_TRANSPORTS.contains(transportName)) {
                        throw new UnsupportedOperationException("\"" + this + "\": abstract Unix socket names are"
                                + " not supported by transport '" + transportName + "': they are Linux-only and need "
                                + ABSTRACT_NAME_TRANSPORTS_TEXT + " (conduit:use " + ABSTRACT_NAME_TRANSPORT
                                + "), or use a path such as unix:/run/name.sock");
                    }
                    return UnixAbstractAddress.of(abstractName);
                }
                return UnixDomainSocketAddress.of(path);
        }
    }

    /**
     * The socket address of this endpoint for any transport (TCP/UDP host names are resolved here: a blocking DNS
     * lookup); whether a transport can use it is {@link #unsupportedBy(Transport)}'s question.
     *
     * @throws IllegalArgumentException when the host name does not resolve
     */
    public SocketAddress address() {
        if (kind == Kind.UNIX) {
            return abstractName != null ? UnixAbstractAddress.of(abstractName) : UnixDomainSocketAddress.of(path);
        }
        InetSocketAddress a = new InetSocketAddress(host, port);
        if (a.isUnresolved()) {
            throw new IllegalArgumentException("\"" + this + "\": host '" + host + "' does not resolve");
        }
        return a;
    }

    /**
     * @return an address of this endpoint's kind without a DNS lookup (TCP/UDP: unresolved), for
     *         {@link Transport#supportsAddress}, which answers for the kind only
     */
    public SocketAddress kindAddress() {
        return kind == Kind.UNIX ? address() : InetSocketAddress.createUnresolved(host, port);
    }

    /**
     * Whether {@code t} can bind and connect this endpoint: it has channels of the endpoint's type and accepts its
     * kind of address ({@link Transport#supportsAddress}; no DNS lookup).
     *
     * @return {@code null} when it can, else why not in one line with what to do, e.g. for {@code unix:@name} on
     *         {@code nio}: abstract Unix socket names are not supported by transport 'nio': ...
     */
    public String unsupportedBy(Transport t) {
        if (!t.channelTypes().contains(channelType())) {
            return "\"" + this + "\": transport '" + t.name() + "' has no " + channelType() + " channels";
        }
        if (t.supportsAddress(kindAddress())) {
            return null;
        }
        if (abstractName != null) {
            String registered = io.conduit.transport.Transports.providers().stream().map(p -> p.name())
                    .filter(ABSTRACT_NAME_TRANSPORTS::contains).sorted().findFirst().orElse(null);
            return "\"" + this + "\": abstract Unix socket names are not supported by transport '" + t.name()
                    + "': they are Linux-only and need " + ABSTRACT_NAME_TRANSPORTS_TEXT + " ("
                    + (registered != null ? "conduit:use " + registered
                            : "their bundles io.conduit.epoll and io.conduit.iouring are not running: start one, 'lb' "
                                    + "shows the ids")
                    + "), or use a path such as unix:/run/name.sock";
        }
        return "\"" + this + "\": transport '" + t.name() + "' cannot bind or connect this kind of address";
    }

    @Override
    public String toString() {
        switch (kind) {
            case TCP:
            case UDP:
                String h = host.indexOf(':') >= 0 ? "[" + host + "]" : host;
                return (tls ? "tls" : kind.name().toLowerCase(Locale.ROOT)) + "://" + h + ":" + port;
            default:
                return abstractName != null ? "unix:@" + abstractName : "unix:" + path;
        }
    }

    /**
     * The canonical form of a bound address of this endpoint's kind (e.g. with the real port after binding port 0).
     *
     * @param bound the channel's local address
     * @return e.g. {@code tcp://127.0.0.1:40123}; this endpoint's own form when {@code bound} is not an
     *         {@link InetSocketAddress}
     */
    public String describeBound(SocketAddress bound) {
        if (bound instanceof InetSocketAddress inet && kind != Kind.UNIX) {
            return new GatewayUri(kind, inet.getAddress() != null ? inet.getAddress().getHostAddress()
                    : inet.getHostString(), inet.getPort(), null, null, tls).toString();
        }
        return toString();
    }
}
