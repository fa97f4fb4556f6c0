package io.conduit.transport.spi;

import io.conduit.channel.UnixAbstractAddress;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.NotYetConnectedException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.channels.UnsupportedAddressTypeException;

/**
 * SPI for transport implementers: the address checks every Conduit transport makes before it encodes an address
 * or calls into {@code java.nio}, so that a bad address fails at once with a message (where {@code java.nio} and
 * the system calls give none) and with the same {@code java.nio.channels} exception type on every transport. The
 * exceptions are subclasses of the {@code java.nio.channels} types that carry a message, so callers catching
 * {@link UnresolvedAddressException} and friends still do. The rules (also documented for users on
 * {@link io.conduit.channel.DatagramChannel}):
 * <ul>
 *   <li>an unresolved {@link InetSocketAddress} → {@link UnresolvedAddressException}
 *       "unresolved address host:port: resolve it before use …";</li>
 *   <li>an address of the wrong kind for the channel → {@link UnsupportedAddressTypeException}
 *       "unsupported socket address type X (addr) for a TCP channel: use InetSocketAddress";</li>
 *   <li>a connected datagram channel asked to connect again, or to send to another address →
 *       {@link AlreadyConnectedException} naming both addresses;</li>
 *   <li>an unconnected datagram channel asked to send without a recipient → {@link NotYetConnectedException};</li>
 *   <li>a Linux abstract-namespace address ({@link UnixAbstractAddress}) on a transport that cannot bind or
 *       connect it (every transport but epoll) → {@link UnsupportedAddressTypeException} naming the address and
 *       saying that it needs the epoll transport on Linux.</li>
 * </ul>
 * Stateless and thread-safe.
 */
public final class AddressErrors {

    private AddressErrors() {
    }

    /**
     * Checks that {@code address} can be used with a socket of {@code kind} on a transport without Linux abstract
     * Unix names: {@link #check(SocketAddress, String, boolean) check(address, kind, false)}.
     *
     * @param kind {@code "TCP"}, {@code "UDP"} or {@code "Unix-domain"}
     * @throws UnresolvedAddressException (with a message) for an unresolved {@link InetSocketAddress}
     * @throws UnsupportedAddressTypeException (with a message) for an address of another kind, or an
     *         {@link UnixAbstractAddress}
     */
    public static void check(SocketAddress address, String kind) {
        check(address, kind, false);
    }

    /**
     * Checks that {@code address} can be used with a socket of {@code kind}; {@code null} passes (a bind to
     * {@code null} picks an address; a {@code null} remote address is the caller's to reject).
     *
     * @param kind          {@code "TCP"}, {@code "UDP"} or {@code "Unix-domain"}
     * @param abstractNames {@code true} when the transport binds and connects Linux abstract names
     *                      ({@link UnixAbstractAddress}) on Unix-domain sockets (epoll)
     * @throws UnresolvedAddressException (with a message) for an unresolved {@link InetSocketAddress}
     * @throws UnsupportedAddressTypeException (with a message) for an address of another kind, or an
     *         {@link UnixAbstractAddress} when {@code abstractNames} is {@code false}
     */
    public static void check(SocketAddress address, String kind, boolean abstractNames) {
        if (address == null) {
            return;
        }
        boolean unix = "Unix-domain".equals(kind);
        if (unix && address instanceof UnixAbstractAddress) {
            if (abstractNames) {
                return;
            }
            throw abstractUnsupported((UnixAbstractAddress) address);
        }
        if (unix ? address instanceof UnixDomainSocketAddress : address instanceof InetSocketAddress) {
            if (!unix && ((InetSocketAddress) address).isUnresolved()) {
                throw unresolved((InetSocketAddress) address);
            }
            return;
        }
        throw new UnsupportedType("unsupported socket address type "
                + address.getClass().getName() + " (" + address + ")"
                + " for a " + kind + " channel: use " + (unix ? "UnixDomainSocketAddress" : "InetSocketAddress"));
    }

    /**
     * @return the exception for a Linux abstract Unix name on a transport that cannot bind or connect it, naming
     *         the address and what to do
     */
    public static UnsupportedAddressTypeException abstractUnsupported(UnixAbstractAddress address) {
        return new UnsupportedType("the abstract Unix socket address " + address + " is Linux-only and needs the"
                + " epoll transport (unix(7) abstract namespace); this transport cannot bind or connect it: select"
                + " the epoll transport on Linux, or use a socket file path (UnixDomainSocketAddress)");
    }

    /** @return the exception for an unresolved {@code address}, naming it */
    public static UnresolvedAddressException unresolved(InetSocketAddress address) {
        return new Unresolved("unresolved address " + address.getHostString() + ":" + address.getPort()
                + ": resolve it before use (new InetSocketAddress(host, port) resolves; check the host name)");
    }

    /** @return the exception for connecting a datagram channel that is connected to {@code peer} already */
    public static AlreadyConnectedException alreadyConnected(SocketAddress peer, SocketAddress requested) {
        return new AlreadyConnected("datagram channel already connected to " + peer + "; disconnect() it before"
                + " connecting it to " + requested);
    }

    /** @return the exception for a datagram to {@code target} on a channel connected to {@code peer} */
    public static AlreadyConnectedException sendToOther(SocketAddress peer, SocketAddress target) {
        return new AlreadyConnected("datagram channel connected to " + peer + " cannot send to " + target
                + ": write to the connected peer (a Buffer, or a DatagramPacket to " + peer
                + "), or disconnect() the channel first");
    }

    /** @return the exception for a datagram without a recipient on an unconnected channel */
    public static NotYetConnectedException noRecipient() {
        return new NotYetConnected("datagram channel is not connected, so a datagram needs a recipient: write a"
                + " DatagramPacket with a recipient, or connect() the channel first");
    }

    /**
     * @param channelId the channel's {@link io.conduit.channel.Channel#id() id}
     * @param datagram  {@code true} for a datagram channel (then bound or connected is what it lacks)
     * @return the exception for a write flushed on a channel that is neither active nor connecting
     * @since 0.6.0
     */
    public static NotYetConnectedException notActive(String channelId, boolean datagram) {
        return new NotYetConnected("write to channel " + channelId + " failed: it is not " + (datagram
                ? "bound or connected; bind or connect it before writing"
                : "connected and no connect is in progress; write once its connect succeeded (writes made while a"
                        + " connect is in progress wait for it)"));
    }

    /**
     * The exception for an address no socket of this transport can take (neither {@link InetSocketAddress} nor
     * {@link UnixDomainSocketAddress}, or {@code null} where one is needed), naming its type and value.
     *
     * @return an {@link UnsupportedAddressTypeException} with a message
     */
    public static UnsupportedAddressTypeException unsupported(SocketAddress address) {
        return new UnsupportedType("unsupported socket address type "
                + (address == null ? "null" : address.getClass().getName() + " (" + address + ")")
                + ": use InetSocketAddress or UnixDomainSocketAddress");
    }

    /** {@link UnresolvedAddressException} with a message. */
    private static final class Unresolved extends UnresolvedAddressException {
        private static final long serialVersionUID = 1L;
        private final String message;

        Unresolved(String message) {
            this.message = message;
        }

        @Override
        public String getMessage() {
            return message;
        }
    }

    /** {@link UnsupportedAddressTypeException} with a message. */
    private static final class UnsupportedType extends UnsupportedAddressTypeException {
        private static final long serialVersionUID = 1L;
        private final String message;

        UnsupportedType(String message) {
            this.message = message;
        }

        @Override
        public String getMessage() {
            return message;
        }
    }

    /** {@link AlreadyConnectedException} with a message. */
    private static final class AlreadyConnected extends AlreadyConnectedException {
        private static final long serialVersionUID = 1L;
        private final String message;

        AlreadyConnected(String message) {
            this.message = message;
        }

        @Override
        public String getMessage() {
            return message;
        }
    }

    /** {@link NotYetConnectedException} with a message. */
    private static final class NotYetConnected extends NotYetConnectedException {
        private static final long serialVersionUID = 1L;
        private final String message;

        NotYetConnected(String message) {
            this.message = message;
        }

        @Override
        public String getMessage() {
            return message;
        }
    }
}
