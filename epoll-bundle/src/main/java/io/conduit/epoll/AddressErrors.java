package io.conduit.epoll;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.NotYetConnectedException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.channels.UnsupportedAddressTypeException;

/**
 * Address checks of the epoll sockets, done before an address is encoded, so that a bad address fails at once
 * with a message and with the {@code java.nio.channels} exception type the {@code nio} transport reports. The
 * exceptions keep the {@code java.nio.channels} types (subclasses that carry a message), so
 * callers catching {@link UnresolvedAddressException} and friends still do. The same rule and wording hold for
 * every Conduit transport (a copy of the nio bundle's: transport bundles do not depend on each other):
 * <ul>
 *   <li>an unresolved {@link InetSocketAddress} → {@link UnresolvedAddressException}
 *       "unresolved address host:port: resolve it before use …";</li>
 *   <li>an address of the wrong kind for the channel → {@link UnsupportedAddressTypeException}
 *       "unsupported socket address type X (addr) for a TCP channel: use InetSocketAddress";</li>
 *   <li>a connected datagram channel asked to connect again, or to send to another address →
 *       {@link AlreadyConnectedException} naming both addresses;</li>
 *   <li>an unconnected datagram channel asked to send without a recipient → {@link NotYetConnectedException}.</li>
 * </ul>
 * Stateless and thread-safe.
 */
final class AddressErrors {

    private AddressErrors() {
    }

    /**
     * Checks that {@code address} can be used with a socket of {@code kind}; {@code null} passes (a bind to
     * {@code null} picks an address; a {@code null} remote address is the caller's to reject).
     *
     * @param kind {@code "TCP"}, {@code "UDP"} or {@code "Unix-domain"}
     * @throws UnresolvedAddressException (with a message) for an unresolved {@link InetSocketAddress}
     * @throws UnsupportedAddressTypeException (with a message) for an address of another kind
     */
    static void check(SocketAddress address, String kind) {
        if (address == null) {
            return;
        }
        boolean unix = "Unix-domain".equals(kind);
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

    /** @return the exception for an unresolved {@code address}, naming it */
    static UnresolvedAddressException unresolved(InetSocketAddress address) {
        return new Unresolved("unresolved address " + address.getHostString() + ":" + address.getPort()
                + ": resolve it before use (new InetSocketAddress(host, port) resolves; check the host name)");
    }

    /** @return the exception for connecting a datagram channel that is connected to {@code peer} already */
    static AlreadyConnectedException alreadyConnected(SocketAddress peer, SocketAddress requested) {
        return new AlreadyConnected("datagram channel already connected to " + peer + "; disconnect() it before"
                + " connecting it to " + requested);
    }

    /** @return the exception for a datagram to {@code target} on a channel connected to {@code peer} */
    static AlreadyConnectedException sendToOther(SocketAddress peer, SocketAddress target) {
        return new AlreadyConnected("datagram channel connected to " + peer + " cannot send to " + target
                + ": write to the connected peer (a Buffer, or a DatagramPacket to " + peer
                + "), or disconnect() the channel first");
    }

    /** @return the exception for a datagram without a recipient on an unconnected channel */
    static NotYetConnectedException noRecipient() {
        return new NotYetConnected("datagram channel is not connected, so a datagram needs a recipient: write a"
                + " DatagramPacket with a recipient, or connect() the channel first");
    }

    /** {@link UnresolvedAddressException} with a message. */
    static final class Unresolved extends UnresolvedAddressException {
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
    static final class UnsupportedType extends UnsupportedAddressTypeException {
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
    static final class AlreadyConnected extends AlreadyConnectedException {
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
    static final class NotYetConnected extends NotYetConnectedException {
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
