package io.conduit.handler.proxy;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A decoded PROXY protocol header (HAProxy's proxy-protocol.txt, versions 1 and 2): who the proxy's client was
 * ({@link #sourceAddress()}) and which address it connected to ({@link #destinationAddress()}), with the
 * version 2 TLVs. Immutable.
 *
 * <p>Addresses are {@link InetSocketAddress}es (unresolved never: the header holds literals) for TCP and UDP,
 * {@link java.net.UnixDomainSocketAddress} or {@link io.conduit.channel.UnixAbstractAddress} for Unix sockets,
 * and {@code null} for a {@link Command#LOCAL} header or protocol {@link Protocol#UNKNOWN}: then the connection's
 * own addresses apply.
 */
public final class ProxyMessage {

    /** What the header asks the receiver to do (version 2; version 1 is always {@link #PROXY}). */
    public enum Command {
        /** The proxy itself made the connection (e.g. a health check): use the connection's own addresses. */
        LOCAL,
        /** The connection is relayed for the client named in the header. */
        PROXY
    }

    /** Address family and transport, as the two spellings of the specification name them. */
    public enum Protocol {
        /** Unknown or unspecified: no addresses. */
        UNKNOWN,
        /** TCP over IPv4 (v1 {@code TCP4}; v2 family INET, STREAM). */
        TCP4,
        /** TCP over IPv6 (v1 {@code TCP6}; v2 family INET6, STREAM). */
        TCP6,
        /** UDP over IPv4 (v2 only). */
        UDP4,
        /** UDP over IPv6 (v2 only). */
        UDP6,
        /** Unix stream socket (v2 only). */
        UNIX_STREAM,
        /** Unix datagram socket (v2 only). */
        UNIX_DGRAM
    }

    private final int version;
    private final Command command;
    private final Protocol protocol;
    private final SocketAddress sourceAddress;
    private final SocketAddress destinationAddress;
    private final List<ProxyTlv> tlvs;

    /**
     * @param version 1 or 2
     * @param sourceAddress the client's address; {@code null} for LOCAL or UNKNOWN
     * @param destinationAddress the address the client connected to; {@code null} for LOCAL or UNKNOWN
     * @param tlvs version 2 TLVs (copied); empty for version 1
     * @throws IllegalArgumentException when the version is not 1 or 2, version 1 is given a LOCAL command, a UDP
     *         or Unix protocol or TLVs, or the addresses do not match the protocol
     */
    public ProxyMessage(int version, Command command, Protocol protocol, SocketAddress sourceAddress,
            SocketAddress destinationAddress, List<ProxyTlv> tlvs) {
        if (version != 1 && version != 2) {
            throw new IllegalArgumentException("PROXY protocol version must be 1 or 2: " + version);
        }
        this.version = version;
        this.command = Objects.requireNonNull(command, "command");
        this.protocol = Objects.requireNonNull(protocol, "protocol");
        this.tlvs = List.copyOf(tlvs);
        boolean addressed = command == Command.PROXY && protocol != Protocol.UNKNOWN;
        if (addressed != (sourceAddress != null) || addressed != (destinationAddress != null)) {
            throw new IllegalArgumentException(addressed ? "a " + protocol + " header needs both addresses"
                    : "a " + command + " " + protocol + " header has no addresses");
        }
        if (version == 1 && (command == Command.LOCAL || !(protocol == Protocol.TCP4 || protocol == Protocol.TCP6
                || protocol == Protocol.UNKNOWN) || !this.tlvs.isEmpty())) {
            throw new IllegalArgumentException("version 1 carries only PROXY TCP4, TCP6 or UNKNOWN, without TLVs");
        }
        this.sourceAddress = sourceAddress;
        this.destinationAddress = destinationAddress;
    }

    /** A version 1 or 2 PROXY header for a TCP connection from {@code source} to {@code destination}. */
    public static ProxyMessage tcp(int version, InetSocketAddress source, InetSocketAddress destination) {
        boolean v6 = source.getAddress() instanceof java.net.Inet6Address;
        if (v6 != destination.getAddress() instanceof java.net.Inet6Address) {
            throw new IllegalArgumentException("source " + source + " and destination " + destination
                    + " are of different address families");
        }
        return new ProxyMessage(version, Command.PROXY, v6 ? Protocol.TCP6 : Protocol.TCP4, source, destination,
                List.of());
    }

    /**
     * The PROXY header that {@link ProxyProtocolDecoder} decoded for {@code channel}. May be called from any
     * thread.
     *
     * @return the message, or {@code null} when none was decoded (yet)
     */
    public static ProxyMessage of(io.conduit.channel.Channel channel) {
        ProxiedConnection p = channel.pipeline().get(ProxiedConnection.class);
        return p == null ? null : p.message;
    }

    /** @return 1 or 2 */
    public int version() {
        return version;
    }

    public Command command() {
        return command;
    }

    public Protocol protocol() {
        return protocol;
    }

    /** @return the client's address as the proxy saw it, or {@code null} (LOCAL or UNKNOWN) */
    public SocketAddress sourceAddress() {
        return sourceAddress;
    }

    /** @return the address the client connected to, or {@code null} (LOCAL or UNKNOWN) */
    public SocketAddress destinationAddress() {
        return destinationAddress;
    }

    /** @return the version 2 TLVs in header order (the CRC32C and NOOP TLVs included) */
    public List<ProxyTlv> tlvs() {
        return tlvs;
    }

    /** @return the first TLV of that type */
    public Optional<ProxyTlv> tlv(int type) {
        return tlvs.stream().filter(t -> t.type() == type).findFirst();
    }

    /** @return the application protocol the client negotiated (ALPN, e.g. {@code "h2"}) */
    public Optional<String> alpn() {
        return tlv(ProxyTlv.TYPE_ALPN).map(ProxyMessage::ascii);
    }

    /** @return the host name the client asked for (TLS SNI or HTTP Host), UTF-8 */
    public Optional<String> authority() {
        return tlv(ProxyTlv.TYPE_AUTHORITY).map(t -> new String(t.value(), StandardCharsets.UTF_8));
    }

    /** @return the proxy's unique id of the connection (up to 128 opaque bytes) */
    public Optional<byte[]> uniqueId() {
        return tlv(ProxyTlv.TYPE_UNIQUE_ID).map(ProxyTlv::value);
    }

    /** @return what the proxy knows of the client's TLS session */
    public Optional<ProxySslInfo> ssl() {
        return tlv(ProxyTlv.TYPE_SSL).map(ProxySslInfo::parse);
    }

    private static String ascii(ProxyTlv t) {
        return new String(t.value(), StandardCharsets.US_ASCII);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ProxyMessage m && version == m.version && command == m.command && protocol == m.protocol
                && Objects.equals(sourceAddress, m.sourceAddress)
                && Objects.equals(destinationAddress, m.destinationAddress) && tlvs.equals(m.tlvs);
    }

    @Override
    public int hashCode() {
        return Objects.hash(version, command, protocol, sourceAddress, destinationAddress, tlvs);
    }

    @Override
    public String toString() {
        return "ProxyMessage(v" + version + " " + command + " " + protocol
                + (sourceAddress != null ? " " + sourceAddress + " -> " + destinationAddress : "")
                + (tlvs.isEmpty() ? "" : " " + tlvs) + ")";
    }
}
