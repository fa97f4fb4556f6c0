package io.conduit.channel;

import java.net.InetSocketAddress;
import java.util.Objects;

import io.conduit.buffer.Buffer;
import io.conduit.buffer.BufferHolder;
import io.conduit.buffer.ReferenceCounted;

/**
 * One datagram: its content and addresses. Owns its content, and its reference count is the content's
 * ({@link BufferHolder}): every {@link ReferenceCounted} method delegates to {@code content}, so
 * {@link ReferenceCounted#release(Object)} — and with it the pipeline tail, a write that fails or completes, a closed channel's queued writes — frees the
 * payload of a packet as it does a plain {@link Buffer}'s. {@link #close()} releases it too.
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

    /** @return the content's reference count; 0 once the content was freed */
    @Override
    public int refCnt() {
        return content.refCnt();
    }

    /**
     * Retains the content once; the packet (its addresses) is immutable and shared.
     *
     * @return this packet
     * @throws io.conduit.buffer.IllegalReferenceCountException when the content was already freed
     */
    @Override
    public DatagramPacket retain() {
        content.retain();
        return this;
    }

    /** Retains the content {@code increment} times ({@code increment > 0}); @return this packet */
    @Override
    public DatagramPacket retain(int increment) {
        content.retain(increment);
        return this;
    }

    /**
     * Releases the content once.
     *
     * @return {@code true} when the content was freed
     * @throws io.conduit.buffer.IllegalReferenceCountException when the content was already freed
     */
    @Override
    public boolean release() {
        return content.release();
    }

    /** Releases the content {@code decrement} times ({@code decrement > 0}); @return {@code true} when freed */
    @Override
    public boolean release(int decrement) {
        return content.release(decrement);
    }

    /** Touches the content (leak report); @return this packet */
    @Override
    public DatagramPacket touch(Object hint) {
        content.touch(hint);
        return this;
    }

    /** Releases the content once, as {@link #release()}. */
    @Override
    public void close() {
        content.close();
    }
}
