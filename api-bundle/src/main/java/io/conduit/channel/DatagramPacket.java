package io.conduit.channel;

import java.net.InetSocketAddress;
import java.util.Objects;

import io.conduit.buffer.Buffer;
import io.conduit.buffer.BufferHolder;

/**
 * One datagram: its content and addresses. Owns its content and is reference counted through it
 * ({@link BufferHolder}): {@link #release()} and {@link #close()} release the content; a channel that writes
 * the packet releases it.
 *
 * <p>Read from a channel, {@code sender} is the source and {@code recipient} the local address it was sent
 * to — the real destination address when {@link ChannelOption#IP_RECVORIGDSTADDR} is on (transparent
 * proxying), otherwise the channel's local address. To write, {@code recipient} is the destination and
 * {@code sender} is {@code null}.
 *
 * @param content the payload, possibly empty; not {@code null}
 * @param recipient where the datagram goes / went
 * @param sender where it came from, or {@code null} for outgoing packets
 * @param truncated {@code true} when the datagram was larger than the receive buffer and was cut
 */
public record DatagramPacket(Buffer content, InetSocketAddress recipient, InetSocketAddress sender, boolean truncated)
        implements BufferHolder {

    /** @throws NullPointerException when {@code content} is {@code null} */
    public DatagramPacket {
        Objects.requireNonNull(content, "content");
    }

    /** An outgoing packet to {@code recipient}. */
    public DatagramPacket(Buffer content, InetSocketAddress recipient) {
        this(content, recipient, null, false);
    }

    /** Releases the content. */
    @Override
    public void close() {
        content.close();
    }
}
