package io.conduit.channel;

import java.net.InetSocketAddress;
import java.util.Objects;

import io.conduit.buffer.Buffer;
import io.conduit.buffer.ReferenceCounted;

/**
 * One datagram: its content and addresses. Owns its content and is reference counted through it:
 * {@link #release()} and {@link #close()} release the content; a channel that writes the packet releases it.
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
        implements ReferenceCounted {

    /** @throws NullPointerException when {@code content} is {@code null} */
    public DatagramPacket {
        Objects.requireNonNull(content, "content");
    }

    /** An outgoing packet to {@code recipient}. */
    public DatagramPacket(Buffer content, InetSocketAddress recipient) {
        this(content, recipient, null, false);
    }

    /** @return the content's reference count: the packet is counted by its content */
    @Override
    public int refCnt() {
        return content.refCnt();
    }

    /** Retains the content. */
    @Override
    public DatagramPacket retain() {
        content.retain();
        return this;
    }

    /** Retains the content {@code increment} times. */
    @Override
    public DatagramPacket retain(int increment) {
        content.retain(increment);
        return this;
    }

    /** Releases the content (so a channel that wrote the packet, or the pipeline's end, frees it). */
    @Override
    public boolean release() {
        return content.release();
    }

    @Override
    public boolean release(int decrement) {
        return content.release(decrement);
    }

    @Override
    public DatagramPacket touch(Object hint) {
        content.touch(hint);
        return this;
    }

    /** Releases the content. */
    @Override
    public void close() {
        content.close();
    }
}
