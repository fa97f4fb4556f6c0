package io.conduit.internal.channel.core;

import io.conduit.buffer.Buffer;
import io.conduit.buffer.BufferAllocator;
import io.conduit.buffer.ReferenceCounted;
import io.conduit.channel.DatagramPacket;
import io.conduit.channel.DomainDatagramPacket;
import io.conduit.concurrent.Future;
import io.conduit.concurrent.Promise;
import io.conduit.internal.channel.OutboundBuffer;
import io.conduit.transport.ChannelType;
import io.conduit.transport.spi.IoDatagramSocket;
import io.conduit.transport.spi.IoSocket;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Arrays;

/**
 * The I/O of a datagram channel (UDP or Unix-domain): reads deliver {@link DatagramPacket}s or
 * {@link DomainDatagramPacket}s (empty ones included); writes take packets, or plain buffers once connected.
 * Batches go through the socket's optional {@link IoDatagramSocket#receiveBatch}/{@link IoDatagramSocket#sendBatch};
 * a {@code -1} answer turns batching off in that direction for the channel's life. One bad datagram (unreachable,
 * too large) fails its own promise, not the channel. Connect and disconnect change the peer, not the channel's life;
 * multicast membership is here too.
 */
final class DatagramIo extends KindIo {

    /** Largest datagram payload received, in bytes (IPv4/IPv6 payloads are at most 65,507/65,527 bytes). */
    private static final int DATAGRAM_MAX_BYTES = 65_536;
    /** Largest batch handed to {@link IoDatagramSocket#sendBatch}. */
    private static final int DATAGRAM_BATCH_MAX = 64;

    private ByteBuffer scratch;                // loop-confined, allocated on the first unbatched datagram read
    /** loop-confined: the socket answered -1 to receiveBatch (each direction batches, or not, on its own) */
    private boolean receiveBatchUnsupported;
    /** loop-confined: the socket answered -1 to sendBatch */
    private boolean sendBatchUnsupported;
    private Object[] batch;                    // loop-confined: scratch of flushed datagrams for sendBatch

    DatagramIo(ChannelCore ch) {
        super(ch);
    }

    private IoDatagramSocket socket() {
        return (IoDatagramSocket) ch.socket;
    }

    /** @return {@code true} when the channel is connected to one peer */
    boolean isConnected() {
        return socket().isConnected();
    }

    // --------------------------------------------------------------------------------------------- reads

    @Override
    void beginRead() {
        if (!ch.open || !ch.registered) {
            return;
        }
        ch.readPending = true;
        if (ch.active) {
            ch.setInterest(IoSocket.OP_READ, true);
        }
    }

    @Override
    public void readReady() {
        if (!ch.open) {
            return;
        }
        if (!wantsInput()) {
            ch.setInterest(IoSocket.OP_READ, false);
            return;
        }
        ch.readPending = false;
        IoDatagramSocket s = socket();
        if (scratch == null && receiveBatchUnsupported) {
            scratch = ByteBuffer.allocateDirect(DATAGRAM_MAX_BYTES);
        }
        BufferAllocator alloc = ch.config.getAllocator();
        int maxMessages = ch.config.maxMessagesPerRead();
        if (!receiveBatchUnsupported && batchRead(s, alloc, ch.config.isAutoRead() ? maxMessages : 1)) {
            return;
        }
        int messages = 0;
        Throwable failure = null;
        try {
            while (messages < maxMessages && ch.open) {
                ByteBuffer buf = scratch;
                buf.clear();
                SocketAddress sender = s.receive(buf);
                if (sender == null) {
                    break;
                }
                buf.flip();
                ch.bytesRead += buf.remaining();
                ch.loopCounters.datagramRead(buf.remaining());
                messages++;
                ch.pipeline.fireChannelRead(inbound(buf, alloc, null, sender, false));
                if (!ch.config.isAutoRead()) {
                    break;
                }
            }
        } catch (Throwable t) {
            failure = t;
        }
        if (messages > 0) {
            ch.pipeline.fireChannelReadComplete();
        }
        if (readFailed(failure)) {
            return;
        }
        if (!ch.config.isAutoRead() && !ch.readPending) {
            ch.setInterest(IoSocket.OP_READ, false);
        }
    }

    /**
     * Fires a datagram read's failure, if any. A socket error (e.g. ICMP port unreachable on a connected channel)
     * leaves the channel open; an allocator failure closes it, as on a stream channel: every later datagram would
     * fail the same way.
     *
     * @return {@code true} when the channel was closed
     */
    private boolean readFailed(Throwable failure) {
        if (failure == null) {
            return false;
        }
        countIoError(failure);
        Throwable cause = ReadFailures.unwrap(failure);
        ch.pipeline.fireExceptionCaught(cause);
        if (!(failure instanceof ReadFailures.AllocatorFailure)) {
            return false;
        }
        ch.close0(cause, ReadFailures.reason(failure, "reading a datagram"), null);
        return true;
    }

    /**
     * One {@link IoDatagramSocket#receiveBatch} call: packets are copied out first and fired after the call, so
     * the transport's shared batch memory is free again before any handler runs.
     *
     * @return {@code false} when the socket does not batch (the caller then reads one datagram at a time)
     */
    private boolean batchRead(IoDatagramSocket s, BufferAllocator alloc, int max) {
        ArrayDeque<Object> packets = new ArrayDeque<>(Math.min(max, 64));
        Throwable[] copyFailure = new Throwable[1];
        Throwable failure = null;
        int n;
        try {
            n = s.receiveBatch(max, (data, sender, recipient, truncated) -> {
                ch.bytesRead += data.remaining(); // received, whether or not it can be copied
                ch.loopCounters.datagramRead(data.remaining());
                if (copyFailure[0] != null) {
                    return; // the allocator failed on an earlier datagram of this batch: the channel closes
                }
                try {
                    packets.add(inbound(data, alloc, recipient, sender, truncated));
                } catch (ReadFailures.AllocatorFailure e) {
                    copyFailure[0] = e; // not thrown through the transport's receive loop
                }
            });
        } catch (Throwable t) {
            n = 0;
            failure = t;
        }
        if (copyFailure[0] != null) {
            failure = copyFailure[0]; // a socket error after it changes nothing: the channel closes anyway
        }
        if (n < 0) {
            receiveBatchUnsupported = true;
            if (scratch == null) {
                scratch = ByteBuffer.allocateDirect(DATAGRAM_MAX_BYTES);
            }
            return false;
        }
        Object p;
        boolean any = !packets.isEmpty();
        try {
            while ((p = packets.poll()) != null) {
                ch.pipeline.fireChannelRead(p);
            }
        } finally {
            while ((p = packets.poll()) != null) {
                ReferenceCounted.safeRelease(p); // only when firing threw: the copies not yet fired are ours to free
            }
        }
        if (any) {
            ch.pipeline.fireChannelReadComplete();
        }
        if (readFailed(failure)) {
            return true;
        }
        if (!ch.config.isAutoRead() && !ch.readPending) {
            ch.setInterest(IoSocket.OP_READ, false);
        }
        return true;
    }

    /**
     * A received datagram as the pipeline sees it, its content a copy of {@code data}'s remaining bytes: a
     * {@link DomainDatagramPacket} on a Unix-domain datagram channel, a {@link DatagramPacket} on UDP. The
     * addresses are resolved first, so nothing that may throw runs between the allocation and the packet taking it.
     *
     * @param recipient the real destination ({@code IP_RECVORIGDSTADDR}), or {@code null} for the local address
     * @param sender the source; the empty path from an unnamed Unix socket
     */
    private Object inbound(ByteBuffer data, BufferAllocator alloc, SocketAddress recipient, SocketAddress sender,
            boolean truncated) {
        if (ch.type == ChannelType.UNIX_DATAGRAM) {
            SocketAddress to = recipient != null ? recipient : ch.localAddress();
            return new DomainDatagramPacket(ReadFailures.copyOf(data, alloc), to, sender, truncated);
        }
        InetSocketAddress to = recipient instanceof InetSocketAddress r ? r : (InetSocketAddress) ch.localAddress();
        InetSocketAddress from = (InetSocketAddress) sender;
        return new DatagramPacket(ReadFailures.copyOf(data, alloc), to, from, truncated);
    }

    // ---------------------------------------------------------------------------------------------- writes

    @Override
    boolean accepts(Object msg) {
        // a Buffer goes to the connected peer; a released content was refused before: a packet's count is its content's
        return msg instanceof Buffer
                || (ch.type == ChannelType.UNIX_DATAGRAM ? msg instanceof DomainDatagramPacket
                        : msg instanceof DatagramPacket);
    }

    @Override
    String writableKinds() {
        return "a Buffer (connected) or a "
                + (ch.type == ChannelType.UNIX_DATAGRAM ? "DomainDatagramPacket" : "DatagramPacket");
    }

    @Override
    boolean write(OutboundBuffer outbound, int spins) {
        while (spins > 0) {
            Object msg = outbound.current();
            if (msg == null) {
                return true;
            }
            if (!sendBatchUnsupported) {
                int sent = batchWrite(outbound);
                if (sent > 0 || sent == -2) { // -2: the head failed and was removed
                    spins--;
                    continue;
                }
                if (sent == 0) {
                    return false;
                }
                // -1: the socket does not batch
            }
            Buffer content = contentOf(msg);
            SocketAddress target = recipientOf(msg);
            ByteBuffer nio = content.readableBytes() == 0 ? ByteBuffer.allocate(0)
                    : content.nioBuffer(content.readerIndex(), content.readableBytes());
            int datagramBytes = nio.remaining();
            boolean sent;
            try {
                sent = socket().send(nio, target);
            } catch (IOException | RuntimeException e) {
                // one bad datagram (unreachable, too large) fails its own promise, not the channel
                ch.loopCounters.ioError();
                if (outbound.removeHead(ChannelCore.annotate(e, target))) {
                    ch.pipeline.fireChannelWritabilityChanged();
                }
                spins--;
                continue;
            }
            if (!sent) {
                return false;
            }
            ch.bytesWritten += datagramBytes;
            ch.loopCounters.datagramWritten(datagramBytes);
            if (outbound.removeHead(null)) {
                ch.pipeline.fireChannelWritabilityChanged();
            }
            spins--;
        }
        return true;
    }

    /** @return the payload of a flushed datagram: a packet's content, or a plain buffer (connected channel) */
    private static Buffer contentOf(Object m) {
        return m instanceof DatagramPacket p ? p.content()
                : m instanceof DomainDatagramPacket d ? d.content() : (Buffer) m;
    }

    /** @return where a flushed datagram goes: a packet's recipient, or {@code null} for the connected peer */
    private static SocketAddress recipientOf(Object m) {
        return m instanceof DatagramPacket p ? p.recipient()
                : m instanceof DomainDatagramPacket d ? d.recipient() : null;
    }

    /**
     * Sends the leading flushed datagrams with one {@link IoDatagramSocket#sendBatch} call.
     *
     * @return datagrams sent and removed ({@code > 0}); {@code 0} when the socket is full; {@code -1} when the
     *         socket does not batch; {@code -2} when the first datagram failed (its promise failed, it was removed)
     */
    private int batchWrite(OutboundBuffer outbound) {
        if (batch == null) {
            batch = new Object[DATAGRAM_BATCH_MAX];
        }
        int count = outbound.flushedMessages(batch);
        ByteBuffer[] srcs = new ByteBuffer[count];
        SocketAddress[] targets = new SocketAddress[count];
        for (int i = 0; i < count; i++) {
            Buffer content = contentOf(batch[i]);
            targets[i] = recipientOf(batch[i]);
            srcs[i] = content.readableBytes() == 0 ? ByteBuffer.allocate(0)
                    : content.nioBuffer(content.readerIndex(), content.readableBytes());
        }
        Arrays.fill(batch, 0, count, null);
        int sent;
        try {
            sent = socket().sendBatch(srcs, targets, count);
        } catch (IOException | RuntimeException e) {
            // one bad datagram (unreachable, too large) fails its own promise, not the channel
            ch.loopCounters.ioError();
            if (outbound.removeHead(ChannelCore.annotate(e, targets[0]))) {
                ch.pipeline.fireChannelWritabilityChanged();
            }
            return -2;
        }
        if (sent < 0) {
            sendBatchUnsupported = true;
            return -1;
        }
        boolean changed = false;
        for (int i = 0; i < sent; i++) {
            ch.bytesWritten += srcs[i].remaining(); // sendBatch leaves the positions as they were
            ch.loopCounters.datagramWritten(srcs[i].remaining());
            changed |= outbound.removeHead(null);
        }
        if (changed) {
            ch.pipeline.fireChannelWritabilityChanged();
        }
        return sent;
    }

    // ------------------------------------------------------------------------------ connect, membership

    @Override
    public void connect(SocketAddress remote, SocketAddress local, Promise<Void> promise) {
        if (!ch.open) {
            promise.tryFailure(ch.closedException("connect to " + remote));
            return;
        }
        if (!promise.setUncancellable()) {
            return; // cancelled on its way: nothing was done (a cancel from now on returns false)
        }
        try {
            IoDatagramSocket ds = socket();
            if (local != null && ds.localAddress() == null) {
                ds.bind(local);
            }
            ds.connect(remote);
            ch.addressesChanged();
            ch.succeedAndActivate(promise);
        } catch (IOException | RuntimeException e) {
            promise.tryFailure(ChannelCore.annotate(e, remote));
        }
    }

    @Override
    void disconnect0(Promise<Void> promise) {
        try {
            socket().disconnect();
            ch.forgetRemote();
            promise.trySuccess(null);
        } catch (IOException | RuntimeException e) {
            promise.tryFailure(e);
        }
    }

    /** Joins ({@code join}) or leaves a multicast group. Any thread. */
    Future<Void> membership(InetAddress group, NetworkInterface nif, boolean join) {
        Promise<Void> promise = ch.newPromise();
        ch.onLoop(() -> {
            if (!promise.setUncancellable()) {
                return; // cancelled before the loop got to it: membership unchanged
            }
            try {
                if (join) {
                    socket().joinGroup(group, nif);
                } else {
                    socket().leaveGroup(group, nif);
                }
                promise.trySuccess(null);
            } catch (IOException | RuntimeException e) {
                promise.tryFailure(e);
            }
        }, promise);
        return promise;
    }
}
