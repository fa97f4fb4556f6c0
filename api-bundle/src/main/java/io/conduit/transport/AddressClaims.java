package io.conduit.transport;

import io.conduit.channel.AddressBindException;

import java.io.IOException;
import java.net.BindException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketAddress;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.List;

/**
 * The addresses the managed endpoints of this class loader hold, and the message of a probe bind that failed. A
 * managed endpoint binds with {@code SO_REUSEPORT}, which would let a second one of the same user share its port
 * silently; the probe bind (a plain JDK socket) catches other processes, the claims catch a second endpoint of this
 * process that probed a moment before and has not bound yet.
 */
final class AddressClaims {

    /** An address a managed endpoint holds while it is open. */
    private record Claim(boolean stream, InetSocketAddress address, Object owner) {
    }

    /** Guarded by itself: the claims of every managed endpoint of this class loader. */
    private static final List<Claim> CLAIMS = new ArrayList<>();

    private AddressClaims() {
    }

    /** A bind of a plain JDK socket, closed at once; see {@link #claimAndProbe}. */
    @FunctionalInterface
    interface ProbeBind {
        void bind(InetSocketAddress address) throws IOException;
    }

    /**
     * Before a managed endpoint's bind with {@code SO_REUSEPORT} that is not the swap overlap: claims
     * {@code address} for {@code owner} ({@link #claim}), then fails when another socket holds it ({@code probe}
     * fails). A port-0 address needs neither: the kernel picks a free port. The window between the probe and the
     * bind is left open.
     *
     * @param stream {@code true} for a TCP listener, {@code false} for a UDP socket
     * @param kind   {@code "ManagedServer"} or {@code "ManagedDatagramEndpoint"}
     * @throws BindException naming the address and the cause: another socket holds it, the address is not one of
     *         this host's, or the port needs privileges ({@link #probeFailed})
     */
    static void claimAndProbe(boolean stream, SocketAddress address, Object owner, String kind, Transport t,
            ProbeBind probe) throws IOException {
        if (!(address instanceof InetSocketAddress inet) || inet.getPort() == 0) {
            return;
        }
        String who = kind + (stream ? " cannot listen on" : " cannot bind");
        claim(stream, inet, owner, who, kind, t);
        try {
            probe.bind(inet);
        } catch (BindException e) {
            throw probeFailed(who, inet, t, "address already in use: another socket " + (stream ? "listens there"
                    : "is bound there") + " ({system}); stop it or configure another port (checked before binding, as "
                    + "the SO_REUSEPORT used for transport swaps would otherwise share the port with it)", e);
        }
    }

    /**
     * Claims {@code address} for {@code owner} until {@link #release}. A claim conflicts with another owner's claim of
     * the same protocol and port at the same address, or where either address is the wildcard. Claiming again for the
     * same owner does nothing; a port-0 address is not claimed.
     *
     * @param stream {@code true} for TCP, {@code false} for UDP
     * @param who    e.g. {@code "ManagedServer cannot listen on"}
     * @param kind   e.g. {@code "ManagedServer"}, naming the other owner in the message
     * @throws AddressBindException ({@code IN_USE}) "address already in use: another {kind} of this process ..." when
     *         another owner holds it
     */
    static void claim(boolean stream, InetSocketAddress address, Object owner, String who, String kind, Transport t)
            throws AddressBindException {
        if (address.getPort() == 0) {
            return;
        }
        synchronized (CLAIMS) {
            boolean held = false;
            for (Claim c : CLAIMS) {
                if (c.owner() == owner) {
                    held |= c.stream() == stream && c.address().equals(address);
                    continue;
                }
                if (c.stream() != stream || c.address().getPort() != address.getPort()) {
                    continue;
                }
                InetAddress a = c.address().getAddress();
                InetAddress b = address.getAddress();
                if (a == null || b == null || a.isAnyLocalAddress() || b.isAnyLocalAddress() || a.equals(b)) {
                    throw new AddressBindException(who + " " + address + " (transport '" + t.name() + "'): address "
                            + "already in use: another " + kind + " of this process " + (stream ? "listens on "
                            : "is bound to ") + c.address() + "; close it or configure another port",
                            AddressBindException.Reason.IN_USE, address, null);
                }
            }
            if (!held) {
                CLAIMS.add(new Claim(stream, address, owner));
            }
        }
    }

    /** Gives up every claim of {@code owner} ({@link #claim}); nothing happens when it holds none. */
    static void release(Object owner) {
        synchronized (CLAIMS) {
            CLAIMS.removeIf(c -> c.owner() == owner);
        }
    }

    /**
     * The exception for a probe bind (the check before an {@code SO_REUSEPORT} bind that no other socket holds the
     * address) that failed: one line naming the address, the transport, the real cause and what to do. The probe is
     * a JDK socket, so the cause is {@link AddressBindException#reasonOf}'s reading of it and, for an address not on
     * this host, also the host's interfaces.
     *
     * @param who      e.g. {@code "ManagedServer cannot listen on"}
     * @param inUse    the sentence for an address in use, ending in the remedy; {@code {system}} is replaced by the
     *                 system's message
     * @param failure  the probe's failure
     * @return an {@link AddressBindException} with that message and reason, caused by {@code failure}
     */
    static AddressBindException probeFailed(String who, InetSocketAddress address, Transport t, String inUse,
            BindException failure) {
        String system = failure.getMessage() == null ? "bind failed" : failure.getMessage();
        AddressBindException.Reason reason = AddressBindException.reasonOf(failure);
        InetAddress ip = address.getAddress();
        String text;
        if (reason == AddressBindException.Reason.IN_USE) {
            text = inUse.replace("{system}", system);
        } else if (reason == AddressBindException.Reason.NOT_AVAILABLE || ip != null && !isLocal(ip)) {
            reason = AddressBindException.Reason.NOT_AVAILABLE;
            boolean v6 = ip instanceof Inet6Address;
            text = (ip == null ? address.getHostString() : ip.getHostAddress()) + " is not an address of this host ("
                    + system + "): configure one of this host's addresses, " + (v6 ? "::1" : "127.0.0.1")
                    + " for this host only, or " + (v6 ? "[::]" : "0.0.0.0") + " for every address";
        } else if (reason == AddressBindException.Reason.ACCESS_DENIED) {
            text = "port " + address.getPort() + " needs privileges (" + system + "): ports below 1024 need root or "
                    + "the capability CAP_NET_BIND_SERVICE; configure a port of 1024 or above";
        } else {
            text = system;
        }
        return new AddressBindException(who + " " + address + " (transport '" + t.name() + "'): " + text, reason,
                address, failure);
    }

    /** @return whether {@code ip} is the wildcard, a loopback address or an address of one of this host's interfaces */
    private static boolean isLocal(InetAddress ip) {
        if (ip.isAnyLocalAddress() || ip.isLoopbackAddress()) {
            return true;
        }
        try {
            return NetworkInterface.getByInetAddress(ip) != null;
        } catch (SocketException e) {
            return true; // cannot tell: trust the system's message
        }
    }
}
