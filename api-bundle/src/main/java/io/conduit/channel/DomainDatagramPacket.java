package io.conduit.channel;

import java.net.SocketAddress;
import java.util.Objects;

import io.conduit.buffer.Buffer;
import io.conduit.buffer.BufferHolder;

/**
 * One Unix-domain datagram ({@code AF_UNIX}, {@code SOCK_DGRAM}): its content and addresses, each a
 * {@link java.net.UnixDomainSocketAddress} (a socket file path) or, on Linux, a {@link UnixAbstractAddress}.
 * Owns its content and is reference counted through it
 * ({@link BufferHolder}): {@link #release()} and {@link #close()} release the content; a channel that writes
 * the packet releases it.
 *
 * <p>Read from a channel, {@code sender} is the socket that sent it — an empty path
 * ({@code UnixDomainSocketAddress.of("")}) when that socket is unnamed (never bound: {@code unix(7)} gives no
 * address, so no reply can be addressed to it) — and {@code recipient} is the channel's local address. To write, {@code recipient} is the destination and {@code sender} is
 * {@code null}.
 *
 * @param content the payload, possibly empty; not {@code null}
 * @param recipient where the datagram goes / went
 * @param sender where it came from (an empty path: an unnamed socket), or {@code null} for outgoing packets
 * @param truncated {@code true} when the datagram was larger than the receive buffer and was cut
 */
public record DomainDatagramPacket(Buffer content, SocketAddress recipient, SocketAddress sender, boolean truncated)
        implements BufferHolder {

    /** @throws NullPointerException when {@code content} is {@code null} */
    public DomainDatagramPacket {
        Objects.requireNonNull(content, "content");
    }

    /** An outgoing packet to {@code recipient}. */
    public DomainDatagramPacket(Buffer content, SocketAddress recipient) {
        this(content, recipient, null, false);
    }

    /** Releases the content. */
    @Override
    public void close() {
        content.close();
    }
}
