package io.conduit.iouring;

import static io.conduit.iouring.NativeAbi.ERRORS;
import static io.conduit.iouring.NativeAbi.SOCKADDR;

import io.conduit.channel.ChannelOption;
import io.conduit.channel.PeerCredentials;
import io.conduit.transport.spi.AddressErrors;
import io.conduit.transport.spi.IoEvents;
import io.conduit.transport.spi.IoPeerCredentials;
import io.conduit.transport.spi.IoSplicePipe;
import io.conduit.transport.spi.IoSpliceSocket;
import io.conduit.transport.spi.IoStreamSocket;

import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * A TCP or Unix-domain stream connection over completions: {@code IORING_OP_RECV} into a receive buffer the socket
 * owns, {@code IORING_OP_SEND} from a send buffer it owns, {@code IORING_OP_CONNECT}; the same requests for both
 * families. A Unix-domain socket also reads its peer's credentials ({@code SO_PEERCRED}).
 *
 * <p><b>Receiving.</b> At most one receive is in flight. It names a buffer group of the loop, not a buffer: the
 * kernel picks a buffer of that provided buffer ring when bytes arrive ({@link IoUringBufferRing}). Its bytes are what
 * {@link #read} hands out (copied into the core's buffer); once they are all handed out, the buffer goes back to its
 * ring and the next receive is submitted. So one buffer of input is read ahead, like a socket's receive queue; end of
 * stream (a receive of 0 bytes) and errors wait behind the bytes before them.
 *
 * <p><b>Multishot.</b> A receive on the ring of small buffers is multishot where the kernel has it (Linux 6.0): it
 * stays armed and completes once per buffer, so request and response traffic costs no request per message. Buffers
 * that complete while bytes are still unread queue behind them in order, and the receive is cancelled
 * ({@link #REQ_STOP}), as it is when the core drops its read interest, so that a connection the core does not read
 * takes no more of the loop's ring (what the socket had queued before the cancel may still land); once every byte
 * is read, a new receive is submitted.
 *
 * <p><b>Receive size.</b> A receive starts with the ring of {@value IoUringBufferRing#BUFFER_BYTES}-byte buffers,
 * which suits many connections with small messages. A receive that filled such a buffer means more bytes were
 * waiting: the next receives name the loop's ring of {@value IoUringBufferRing#LARGE_BUFFER_BYTES}-byte buffers, as
 * long as each brings more than a small buffer holds, so a streaming connection needs an eighth of the requests,
 * completions and loop turns per byte. When the large ring is empty ({@code -ENOBUFS}) the receive is submitted
 * again on the small one; when that is empty, or the kernel has no provided buffer rings (before Linux 5.19), it goes
 * into {@link #RECEIVE_BYTES} of the socket's own. Nothing stalls, and a connection holds a ring buffer only while it
 * has bytes in it.
 *
 * <p><b>Streaming reads go inline.</b> While a connection streams (its last receive named the ring of large buffers)
 * and a read has handed out every received byte, no receive is submitted: the next read calls {@code read(2)},
 * non-blocking on the loop thread, straight into the core's buffer (direct, at least {@link #INLINE_READ_MIN_BYTES}),
 * as epoll reads, and the copy out of a ring buffer is saved. Only while nothing is held or queued and no receive is
 * in flight or being stopped, so no byte can overtake one a receive took; the socket then stays readable until a
 * {@code read(2)} finds it empty ({@code EAGAIN}), which submits the receive as before and makes the socket not
 * readable until its completion. End of stream and errors of {@code read(2)} are kept as a receive's are. A socket
 * the core does not read (no read interest, e.g. auto-read off after its read-ahead) reads nothing inline and
 * submits nothing; once the core reads again it is readable and reads inline. The cost: one {@code read(2)} that
 * finds {@code EAGAIN} each time a streaming connection runs dry.
 *
 * <p><b>Sending.</b> {@link #write} copies what the core hands it into the send buffer ({@link #SEND_BYTES}; a
 * connection whose writes fit starts with {@link #SMALL_SEND_BYTES} and moves to the large one, between two sends,
 * once it stages more) and
 * returns the bytes it took, as a kernel send buffer does; a full buffer takes nothing (0), and the core then waits
 * for write readiness, which the next send completion reports. One send is in flight: it covers the bytes staged
 * when it was submitted, and bytes staged meanwhile go with the next one (a short send resubmits the rest). Bytes
 * beyond the in-flight range may be appended while the kernel reads it; the buffer is compacted only when no send is
 * in flight. {@link #shutdownOutput()} waits for the staged bytes, and a close keeps the descriptor open until they
 * are sent, so the peer gets every byte the core was told was written, then end of stream.
 *
 * <p><b>Large writes</b> ({@link #DIRECT_WRITE_BYTES} or more in direct buffers) skip the send buffer:
 * {@code writev(2)}, non-blocking on the loop thread, straight from the core's buffers, as epoll writes; never while
 * staged bytes wait or a send is in flight (the write takes nothing, and the send completion that empties the buffer
 * reports write readiness, as for {@code sendfile(2)}). What the kernel did not take stays the core's; a full socket
 * waits for room with one {@code IORING_OP_POLL_ADD} for {@code POLLOUT}. Streaming so saves the send copy; small
 * writes keep batching into the ring's sends, and heap buffers are staged.
 *
 * <p>Both buffers are lent by the loop ({@link IoUringIoHandler#lendBuffer}) while bytes are in them and given back
 * after, so an idle or closed connection holds none; when direct memory is exhausted, the connection fails with an
 * {@link IOException} and the loop goes on. The copies cost what a kernel send and receive buffer would; streaming
 * connections skip both (large direct writes and inline reads).
 *
 * <p><b>File regions and zero-copy forwarding</b> copy nothing. {@link #transferFrom} calls {@code sendfile(2)} and a
 * forwarding's pipe ({@link IoUringSplicePipe}) {@code splice(2)}, non-blocking system calls on the loop thread, never
 * while staged bytes wait (they go first). An empty or full socket answers 0 and waits with one
 * {@code IORING_OP_POLL_ADD} ({@code POLLIN} or {@code POLLOUT}), whose completion is the readiness the core waits
 * for; close cancels it. Not {@code IORING_OP_SPLICE}: the kernel runs each such request on an io-wq worker thread,
 * where it blocks while the socket is empty or full (see {@link IoUringSplicePipe}). Once a socket forwards, it
 * submits no receive; the bytes of the receive made before go into the pipe first. A file whose file system cannot
 * splice ({@code EINVAL}) is copied through the send buffer.
 *
 * <p>Threading: loop thread, as {@link io.conduit.transport.spi.IoSocket} says.
 */
final class IoUringStreamSocket extends IoUringSocket implements IoSpliceSocket, IoPeerCredentials {

    /** the socket's own receive buffer (when the loop's ring is empty or missing), owned by the kernel while a receive is in flight */
    static final int RECEIVE_BYTES = 64 * 1024;
    /** receives that found the loop's provided buffer ring empty ({@code -ENOBUFS}) and fell back (test hook) */
    static final java.util.concurrent.atomic.AtomicLong RECEIVE_RING_EMPTY = new java.util.concurrent.atomic.AtomicLong();
    /** receives that found the loop's ring of large buffers empty and were submitted on the small one (test hook) */
    static final java.util.concurrent.atomic.AtomicLong LARGE_RING_EMPTY = new java.util.concurrent.atomic.AtomicLong();
    /**
     * bytes from which a write of direct buffers goes straight to {@code writev(2)} when nothing is staged or in
     * flight; smaller writes are staged and batched into the ring's sends, which request and response traffic over
     * many connections needs (one {@code io_uring_enter} for all of them, no system call per write)
     */
    static final int DIRECT_WRITE_BYTES = 32 * 1024;
    /**
     * the fewest bytes of room a read's direct buffer needs for a {@code read(2)} straight into it while the
     * connection streams; a smaller or heap buffer is filled from a ring receive, whose buffer is at least as large
     */
    static final int INLINE_READ_MIN_BYTES = IoUringBufferRing.BUFFER_BYTES;
    /** the send buffer: staged output, the in-flight part owned by the kernel */
    static final int SEND_BYTES = 128 * 1024;
    /**
     * the send buffer a connection starts with when what it writes fits: request and response traffic stays in it,
     * so hundreds of connections with a send in flight hold kilobytes each, not {@link #SEND_BYTES}
     */
    static final int SMALL_SEND_BYTES = 8 * 1024;
    /**
     * Receives on the ring of small buffers are multishot ({@code IORING_RECV_MULTISHOT}, Linux 6.0); turned off
     * for good when the kernel rejects them ({@code -EINVAL}). Test hook.
     */
    static volatile boolean multishot = true;
    /** zero-copy sends the kernel finished with (test hook) */
    static final java.util.concurrent.atomic.AtomicLong ZC_SENDS = new java.util.concurrent.atomic.AtomicLong();
    /** zero-copy sends whose notification said the kernel copied after all, e.g. over loopback (test hook) */
    static final java.util.concurrent.atomic.AtomicLong ZC_COPIED = new java.util.concurrent.atomic.AtomicLong();
    /** {@code IORING_OP_SEND_ZC}; turned off for good when the kernel rejects it ({@code -EINVAL}, before 6.0) */
    private static volatile boolean sendZc = true;
    /** {@code sqe.ioprio} of a zero-copy send: usage reports, dropped when the kernel rejects them (before 6.2) */
    private static volatile int sendZcFlags = NativeAbi.IORING_SEND_ZC_REPORT_USAGE;
    /** {@code sendfile(2)} calls of file regions (test hook: the zero-copy path ran) */
    static final java.util.concurrent.atomic.AtomicLong SENDFILE_CALLS = new java.util.concurrent.atomic.AtomicLong();
    /** bytes received before a forwarding began, written into its pipe ahead of the spliced ones (test hook) */
    static final java.util.concurrent.atomic.AtomicLong RECEIVED_BYTES_PIPED = new java.util.concurrent.atomic.AtomicLong();
    /** file region reads through the send buffer: the file cannot be spliced, or is no JDK file (test hook) */
    static final java.util.concurrent.atomic.AtomicLong FILE_COPY_CALLS = new java.util.concurrent.atomic.AtomicLong();

    /** {@link #rawWriteWait}: no {@code sendfile(2)} or {@code splice(2)} into this socket waits */
    private static final byte RAW_WRITE_NONE = 0;
    /** {@link #rawWriteWait}: it waits for the staged bytes to be sent, which go first */
    private static final byte RAW_WRITE_AFTER_STAGED = 1;
    /** {@link #rawWriteWait}: it found the socket full and waits for the {@code POLLOUT} poll */
    private static final byte RAW_WRITE_AFTER_ROOM = 2;

    private boolean connected;           // loop-confined
    // receiving (loop-confined)
    /** the socket's own receive buffer: made when the loop's provided buffer ring is empty or missing */
    private ByteBuffer receiveBuffer;
    /** where the received bytes are: {@link #receiveBuffer}, or the buffers of the loop's ring */
    private ByteBuffer received;
    /** the ring buffer holding the received bytes, or -1 */
    private int heldBuffer = -1;
    /** the ring {@link #heldBuffer} belongs to */
    private IoUringBufferRing heldRing;
    /** the ring the receive in flight picks its buffer from; {@code null} when it goes into {@link #receiveBuffer} */
    private IoUringBufferRing receivingRing;
    /** the next receive names the loop's ring of large buffers: the last one brought more than a small buffer holds */
    private boolean receiveLarge;
    private int receivedStart;
    private int receivedEnd;
    private boolean receiving;
    /** the receive in flight is multishot: it stays armed, one completion per ring buffer, until its last CQE */
    private boolean receivingMultishot;
    /** a {@link #REQ_STOP} cancel of the multishot receive is in flight */
    private boolean stopping;
    /** ring buffers a multishot receive filled behind the held one; made the first time one is needed */
    private ReceiveQueue queue;
    /** the next receive goes into {@link #receiveBuffer}: the ring was empty ({@code -ENOBUFS}) */
    private boolean receiveOwnBufferOnce;
    private boolean endOfStream;
    /**
     * the connection streams and no receive is in flight: the next read calls {@code read(2)} into the core's buffer
     * (and the socket is readable until then); set when a read hands out the last received byte or a {@code read(2)}
     * brought bytes, cleared by {@code EAGAIN}, end of stream, an error, a receive submitted and a forwarding
     */
    private boolean readInline;
    /** -errno of a failed receive, handed out by the next read */
    private int receiveError;
    // sending (loop-confined)
    private ByteBuffer sendBuffer;
    private long sendAddress;
    /** first staged byte not yet confirmed sent */
    private int sendStart;
    /** end of the range the in-flight send covers */
    private int sendEnd;
    /** end of the staged bytes */
    private int stagedEnd;
    private boolean sending;
    /** a write found the small send buffer too small while a send was in flight: grow it once that send completed */
    private boolean growSendBuffer;
    private int sendError;
    /** zero-copy sends ({@link ChannelOption#SEND_ZC_THRESHOLD}): made when the option is first set */
    private volatile ZeroCopy zeroCopy;
    /**
     * the most bytes staged and not yet sent: {@link #SEND_BYTES}, or the {@code SO_SNDBUF} the application set (the
     * kernel then stops growing its own buffer too), so a small send buffer keeps its back-pressure; any thread
     * writes (options), the loop reads
     */
    private volatile int stagedLimit = SEND_BYTES;
    private boolean shutdownOutputWhenSent;
    // sendfile(2) and splice(2) into the socket, made on the loop thread (loop-confined)
    /** {@link #RAW_WRITE_NONE}, {@link #RAW_WRITE_AFTER_STAGED} or {@link #RAW_WRITE_AFTER_ROOM} */
    private byte rawWriteWait;
    /** a {@code POLLOUT} poll is in flight */
    private boolean pollingOut;
    /** the file whose region {@code sendfile(2)} refused ({@code EINVAL}: its file system cannot splice): copied */
    private FileChannel copiedFile;
    // splice(2) out of the socket, for zero-copy forwarding (loop-confined)
    /** the input goes to a forwarding's pipe: no receive is submitted any more */
    private boolean splicing;
    /** a {@code POLLIN} poll is in flight */
    private boolean pollingIn;
    /** the {@code POLLIN} poll completed: a {@code splice(2)} may find input */
    private boolean inputReady;
    /** the connect, from {@link #connect} on (loop-confined); an accepted socket never has one */
    private Connect connect;

    /** Zero-copy sends of one socket: few sockets have them, so the state is apart. */
    private static final class ZeroCopy {
        /** bytes from which a send is zero-copy; 0 = never; any thread writes, the loop reads */
        volatile int threshold;
        /** the send in flight is a zero-copy send: the buffer stays the kernel's until its notification */
        boolean sending;
        /** the result of the zero-copy send in flight, kept until its notification */
        int result;
    }

    /** The state of a connect: its address (the kernel's until completion) and its result. */
    private static final class Connect {
        final ByteBuffer address;
        boolean done;
        int result;

        Connect(ByteBuffer address) {
            this.address = address;
        }
    }

    /**
     * Ring buffers a multishot receive filled behind the held one, oldest first (loop-confined): each as buffer id
     * (high half) and byte count (low half), all of one ring. A holder of its own, so that the many connections that
     * never queue pay one field for it.
     */
    private static final class ReceiveQueue {
        long[] entries = new long[4];
        int head;
        int count;
        IoUringBufferRing ring;

        void add(IoUringBufferRing from, int bid, int bytes) {
            if (count == entries.length) {
                long[] grown = new long[entries.length * 2];
                for (int i = 0; i < count; i++) {
                    grown[i] = entries[(head + i) % entries.length];
                }
                entries = grown;
                head = 0;
            }
            entries[(head + count) % entries.length] = ((long) bid << 32) | (bytes & 0xFFFF_FFFFL);
            count++;
            ring = from;
        }

        /** @return the oldest entry; only while {@code count > 0} */
        long take() {
            long entry = entries[head];
            head = (head + 1) % entries.length;
            count--;
            return entry;
        }
    }

    /** A new, unconnected socket: Unix-domain when {@code unix}, else TCP. */
    static IoUringStreamSocket open(boolean unix) throws IOException {
        int[] fdAndDomain = IoUringSocket.openStream(unix);
        return new IoUringStreamSocket(fdAndDomain[0], fdAndDomain[1], false);
    }

    /** @param connected {@code true} for an accepted socket */
    IoUringStreamSocket(int fd, int domain, boolean connected) {
        super(fd, domain, domain == NativeAbi.AF_UNIX ? UNIX : TCP);
        this.connected = connected;
    }

    // ------------------------------------------------------------------------------------------- reading

    @Override
    public int read(ByteBuffer dst) throws IOException {
        liveFd("read");
        int available = receivedEnd - receivedStart;
        if (available > 0) {
            boolean fits = inlineFits(dst); // before the copy: the core's buffers are this large
            int n = Math.min(dst.remaining(), available);
            dst.put(dst.position(), received, receivedStart, n);
            dst.position(dst.position() + n);
            receivedStart += n;
            if (receivedStart == receivedEnd) {
                receivedStart = 0;
                receivedEnd = 0;
                giveBackHeldBuffer();
                returnReceiveBuffer();
                if (!takeQueued()) {
                    if (receiveLarge && !receiving && !splicing && fits) {
                        readInline = true; // streaming: the next read calls read(2) into the core's buffer
                    } else {
                        receive();
                    }
                }
            }
            return n;
        }
        if (receiveError != 0) {
            throw ERRORS.newIoException("recv", receiveError);
        }
        if (endOfStream) {
            return -1;
        }
        if (readsInline(dst)) {
            return readInline(dst);
        }
        readInline = false;
        receive();
        return 0;
    }

    /** @return {@code true} when {@code dst} can take a {@code read(2)} straight into it: direct, with room enough */
    private static boolean inlineFits(ByteBuffer dst) {
        return dst.isDirect() && dst.remaining() >= INLINE_READ_MIN_BYTES;
    }

    /**
     * @return {@code true} when a {@code read(2)} into {@code dst} keeps the bytes in order and the core reads: the
     *         connection streams, nothing is held or queued, no receive is in flight (nor its stop), no forwarding
     *         takes the input, and the socket is registered with read interest
     */
    private boolean readsInline(ByteBuffer dst) {
        return receiveLarge && !receiving && !splicing && receivedEnd == receivedStart
                && (queue == null || queue.count == 0) && wants(OP_READ) && canSubmit() && inlineFits(dst);
    }

    /**
     * {@code read(2)}, non-blocking, on the loop thread, straight into {@code dst}'s remaining bytes (only when
     * {@link #readsInline}). End of stream and errors are kept as a receive's are: every later read answers -1, or
     * throws the same error. {@code EAGAIN} submits the receive, and the socket is not readable until it completes.
     *
     * @return bytes read, advancing {@code dst}'s position; 0 when the socket is empty; -1 at end of stream
     * @throws IOException the {@code read(2)} error ({@code ECONNRESET}, ...), named as a receive's
     */
    private int readInline(ByteBuffer dst) throws IOException {
        IoUringIoHandler h = handler();
        int r;
        do {
            r = Native.read(fd(), Native.addressOf(dst) + dst.position(), dst.remaining());
        } while (r == -NativeAbi.EINTR);
        if (r > 0) {
            h.inlineReads++;
            h.inlineReadBytes += r;
            dst.position(dst.position() + r);
            readInline = true; // more may be there: readable until a read(2) finds none
            return r;
        }
        readInline = false;
        if (r == 0) {
            endOfStream = true;
            return -1;
        }
        if (r == -NativeAbi.EAGAIN) {
            h.inlineReadsDry++;
            receive(); // its completion is the next read readiness
            return 0;
        }
        receiveError = r;
        throw ERRORS.newIoException("recv", r);
    }

    /**
     * Submits the next receive unless one is in flight, input ended, or the socket cannot submit: into a buffer the
     * kernel picks from one of the loop's provided buffer rings (the large one while the connection streams), or,
     * when the loop has none or the small one was empty, into the socket's own buffer.
     */
    private void receive() throws IOException {
        if (receiving || splicing || endOfStream || receiveError != 0 || !connected || !canSubmit()) {
            return;
        }
        IoUringBufferRing ring = null;
        if (!receiveOwnBufferOnce) {
            ring = receiveLarge ? handler().largeBufferRing() : null;
            if (ring == null) {
                ring = handler().bufferRing();
            }
        }
        if (ring != null) {
            boolean multi = multishot && ring.group() == IoUringBufferRing.GROUP;
            submitSelectingBuffer(REQ_RECV, NativeAbi.IORING_OP_RECV, ring.group(), 0,
                    multi ? NativeAbi.IORING_RECV_MULTISHOT : 0);
            receivingMultishot = multi;
        } else {
            receiveOwnBufferOnce = false;
            if (receiveBuffer == null) {
                receiveBuffer = handler().lendBuffer(RECEIVE_BYTES);
            }
            submit(REQ_RECV, NativeAbi.IORING_OP_RECV, Native.addressOf(receiveBuffer), RECEIVE_BYTES, 0, 0, 0);
            receivingMultishot = false;
        }
        handler().receivesSubmitted++;
        receivingRing = ring;
        receiving = true;
        readInline = false;
    }

    /** Stops the multishot receive from taking more ring buffers; its last completion ({@code -ECANCELED}) follows. */
    private void stopReceiving() {
        if (receiving && receivingMultishot && !stopping) {
            stopping = cancel(REQ_RECV, REQ_STOP);
        }
    }

    /** Queues a ring buffer a multishot receive filled while bytes before it are unread. */
    private void enqueue(IoUringBufferRing ring, int bid, int bytes) {
        if (queue == null) {
            queue = new ReceiveQueue();
        }
        queue.add(ring, bid, bytes);
    }

    /** @return {@code true} when a queued ring buffer became the held one, its bytes next to read */
    private boolean takeQueued() {
        if (queue == null || queue.count == 0) {
            return false;
        }
        long entry = queue.take();
        hold(queue.ring, (int) (entry >>> 32), (int) entry);
        return true;
    }

    /** Makes {@code bytes} of ring buffer {@code bid} the ones {@link #read} hands out next. */
    private void hold(IoUringBufferRing ring, int bid, int bytes) {
        handler().ringBuffersHeld++;
        heldBuffer = bid;
        heldRing = ring;
        received = ring.buffers();
        receivedStart = ring.offset(bid);
        receivedEnd = receivedStart + bytes;
    }

    /** Gives the ring buffer whose bytes were all read back to the kernel. */
    private void giveBackHeldBuffer() {
        if (heldBuffer >= 0) {
            IoUringIoHandler h = handler();
            if (h != null) {
                h.ringBuffersHeld--;
            }
            heldRing.provide(heldBuffer);
            heldBuffer = -1;
            heldRing = null;
        }
    }

    @Override
    void released() {
        giveBackHeldBuffer(); // the bytes in it will never be read
        while (queue != null && queue.count > 0) {
            queue.ring.provide((int) (queue.take() >>> 32));
        }
        receivedStart = 0;
        receivedEnd = 0;
        readInline = false; // a loop the socket registers with next submits a receive, or reads when it is readable
        returnReceiveBuffer();
        returnSendBuffer();
    }

    /** Gives the own receive buffer back to the loop while it holds no bytes and no receive uses it. */
    private void returnReceiveBuffer() {
        if (receiveBuffer != null && !receiving && (received != receiveBuffer || receivedStart == receivedEnd)) {
            if (received == receiveBuffer) {
                received = null;
            }
            handler().returnBuffer(receiveBuffer);
            receiveBuffer = null;
        }
    }

    /** Gives the send buffer back to the loop while nothing is staged in it and no send uses it. */
    private void returnSendBuffer() {
        if (sendBuffer != null && !sending && stagedEnd == sendStart) {
            handler().returnBuffer(sendBuffer);
            sendBuffer = null;
            sendAddress = 0;
            sendStart = 0;
            sendEnd = 0;
            stagedEnd = 0;
        }
    }

    /** Moves the unsent bytes to the buffer's start; only while no send is in flight (none of it is the kernel's). */
    private void compact() {
        int staged = stagedEnd - sendStart;
        ByteBuffer window = sendBuffer.duplicate();
        window.position(sendStart).limit(stagedEnd);
        window.compact();
        sendStart = 0;
        stagedEnd = staged;
    }

    private boolean readable() {
        return (readInline && !receiving) || receivedEnd > receivedStart || endOfStream || receiveError != 0
                || (splicing && inputReady);
    }

    // ------------------------------------------------------------------------------------------- writing

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        liveFd("send");
        if (sendError != 0) {
            throw ERRORS.newIoException("send", sendError);
        }
        rawWriteWait = RAW_WRITE_NONE;
        int directEnd = directEnd(srcs, offset, length);
        if (directEnd > offset) {
            if (sending || stagedEnd > sendStart) {
                // the staged bytes go first; then this write goes to writev(2) instead of being copied behind them
                rawWriteWait = RAW_WRITE_AFTER_STAGED;
                return 0;
            }
            return writeDirect(srcs, offset, directEnd);
        }
        if (sendBuffer == null || sendBuffer.capacity() < SEND_BYTES) {
            long wanted = 0;
            for (int i = offset; i < offset + length; i++) {
                wanted += srcs[i].remaining();
            }
            if (sendBuffer == null) {
                lendSendBuffer(wanted <= SMALL_SEND_BYTES ? SMALL_SEND_BYTES : SEND_BYTES);
            } else if (wanted > sendBuffer.capacity() - (stagedEnd - sendStart)) {
                if (sending) {
                    growSendBuffer = true; // the kernel reads the small one now: grow when that send completed
                } else {
                    growSendBuffer();
                }
            }
        }
        if (!sending && sendStart > 0) {
            compact();
        }
        int room = room();
        long taken = 0;
        for (int i = offset; i < offset + length && room > 0; i++) {
            ByteBuffer b = srcs[i];
            int n = Math.min(b.remaining(), room);
            if (n > 0) {
                sendBuffer.put(stagedEnd, b, b.position(), n);
                b.position(b.position() + n);
                stagedEnd += n;
                room -= n;
                taken += n;
            }
        }
        if (taken > 0 && !sending) {
            send();
        }
        return taken;
    }

    /**
     * @return the end (exclusive) of the leading direct buffers of {@code srcs[offset, offset + length)} when they
     *         hold at least {@link #DIRECT_WRITE_BYTES}, so the write goes to {@link #writeDirect}; else
     *         {@code offset}: the write is staged (small, heap buffers first, zero-copy sends configured, or no loop)
     */
    private int directEnd(ByteBuffer[] srcs, int offset, int length) {
        ZeroCopy zc = zeroCopy;
        if ((zc != null && zc.threshold > 0) || handler() == null) {
            return offset;
        }
        long bytes = 0;
        int end = offset;
        while (end < offset + length && srcs[end].isDirect()) {
            bytes += srcs[end].remaining();
            end++;
        }
        return bytes >= DIRECT_WRITE_BYTES ? end : offset;
    }

    /**
     * A large write straight from the core's buffers {@code srcs[offset, end)}, all direct: {@code writev(2)},
     * non-blocking, on the loop thread (the kernel copies them into its send buffer, as epoll's write does; the send
     * buffer's copy is saved). Only while nothing is staged and no send is in flight, so no byte can overtake one the
     * ring still sends; zero-copy sends ({@link ChannelOption#SEND_ZC_THRESHOLD}) keep the ring. A socket that took
     * part of it, or nothing ({@code EAGAIN}), is full: one {@code IORING_OP_POLL_ADD} for {@code POLLOUT} waits, and
     * its completion is the write readiness the core waits for; until then a large write takes nothing without a
     * system call.
     *
     * @return bytes the kernel took ({@code 0}: the socket is full)
     * @throws IOException the {@code writev(2)} error ({@code EPIPE}, {@code ECONNRESET}, ...)
     */
    private long writeDirect(ByteBuffer[] srcs, int offset, int end) throws IOException {
        IoUringIoHandler h = handler();
        if (pollingOut) {
            rawWriteWait = RAW_WRITE_AFTER_ROOM; // the socket was full and its POLLOUT poll has not completed
            return 0;
        }
        io.conduit.transport.spi.unix.IovArray iov = h.iov();
        for (int i = offset; i < end; i++) {
            ByteBuffer b = srcs[i];
            if (b.hasRemaining() && !iov.add(Native.addressOf(b) + b.position(), b.remaining())) {
                break; // the iovec array is full: the rest goes with the next write
            }
        }
        long n;
        do {
            n = Native.writev(fd(), iov.address(), iov.count());
        } while (n == -NativeAbi.EINTR);
        if (n == -NativeAbi.EAGAIN) {
            h.directWriteWaits++;
            awaitRoom();
            return 0;
        }
        if (n < 0) {
            throw ERRORS.newIoException("writev", (int) n);
        }
        h.directWrites++;
        h.directWriteBytes += n;
        if (n < iov.totalBytes()) {
            h.directWriteWaits++;
            awaitRoom(); // the kernel's buffer is full now
        }
        io.conduit.transport.spi.unix.IovArray.advance(srcs, offset, end, n);
        return n;
    }

    private void lendSendBuffer(int bytes) throws IOException {
        sendBuffer = handler().lendBuffer(bytes);
        sendAddress = Native.addressOf(sendBuffer);
    }

    /**
     * Moves the staged bytes from the small send buffer into a {@link #SEND_BYTES} one; only while no send is in
     * flight (none of the small one is the kernel's).
     */
    private void growSendBuffer() throws IOException {
        growSendBuffer = false;
        ByteBuffer small = sendBuffer;
        int staged = stagedEnd - sendStart;
        lendSendBuffer(SEND_BYTES);
        sendBuffer.put(0, small, sendStart, staged);
        sendStart = 0;
        sendEnd = 0;
        stagedEnd = staged;
        handler().returnBuffer(small);
    }

    /** Submits a send of every staged byte not yet sent. */
    private void send() throws IOException {
        if (handler() == null) {
            return;
        }
        if (sendStart > 0 && !sending) {
            compact();
        }
        sendEnd = stagedEnd;
        int length = sendEnd - sendStart;
        ZeroCopy zc = zeroCopy;
        boolean zeroCopySend = zc != null && zc.threshold > 0 && length >= zc.threshold && sendZc;
        if (zc != null) {
            zc.sending = zeroCopySend;
        }
        if (zeroCopySend) {
            submit(REQ_SEND, NativeAbi.IORING_OP_SEND_ZC, sendAddress + sendStart, length, 0, NativeAbi.MSG_NOSIGNAL,
                    sendZcFlags);
        } else {
            submit(REQ_SEND, NativeAbi.IORING_OP_SEND, sendAddress + sendStart, length, 0, NativeAbi.MSG_NOSIGNAL, 0);
        }
        sending = true;
    }

    /**
     * A completion of the send in flight. A zero-copy send completes twice: first with its result
     * ({@code IORING_CQE_F_MORE}: a notification follows), then with the notification ({@code IORING_CQE_F_NOTIF})
     * once the kernel no longer reads the buffer; only then is the send done, so the buffer is neither compacted,
     * grown nor given back while the kernel still reads it.
     */
    private void sendCompleted(int res, int flags) {
        ZeroCopy zc = zeroCopy;
        if (zc == null || !zc.sending) {
            sent(res);
            return;
        }
        if ((flags & NativeAbi.IORING_CQE_F_NOTIF) != 0) {
            if (zc.result >= 0) {
                ZC_SENDS.incrementAndGet();
            }
            if (zc.result >= 0 && (res & NativeAbi.IORING_NOTIF_USAGE_ZC_COPIED) != 0) {
                ZC_COPIED.incrementAndGet();
            }
            zc.sending = false;
            zeroCopySent(zc.result);
            return;
        }
        if ((flags & NativeAbi.IORING_CQE_F_MORE) != 0) {
            zc.result = res; // the buffer is still the kernel's: wait for the notification
            return;
        }
        zc.sending = false; // no notification follows
        zeroCopySent(res);
    }

    /**
     * A zero-copy send is done: a refusal ({@code -EOPNOTSUPP} from a socket that cannot, e.g. Unix-domain;
     * {@code -EINVAL} from an older kernel) sends the same bytes again as a plain send; anything else is the send's
     * result.
     */
    private void zeroCopySent(int res) {
        if (res == -NativeAbi.EOPNOTSUPP || res == -NativeAbi.EINVAL) {
            if (res == -NativeAbi.EOPNOTSUPP) {
                zeroCopy.threshold = 0; // this socket cannot (e.g. Unix-domain)
            } else if (sendZcFlags != 0) {
                sendZcFlags = 0; // a kernel before 6.2: no usage reports
            } else {
                sendZc = false; // a kernel before 6.0
            }
            sending = false;
            try {
                send(); // the same bytes again
            } catch (IOException ex) {
                sent(-NativeAbi.EBUSY);
            }
            return;
        }
        sent(res);
    }

    /** @return the bytes {@link #write} may stage now: buffer space at the end, within {@link #stagedLimit} */
    private int room() {
        int capacity = sendBuffer != null ? sendBuffer.capacity() : SEND_BYTES;
        return Math.max(0, Math.min(capacity - stagedEnd, stagedLimit - (stagedEnd - sendStart)));
    }

    /**
     * @return {@code true} when a write may make progress: the staged bytes have room, or, after a {@code sendfile(2)}
     *         or {@code splice(2)} into the socket waited, the staged bytes before it are sent or the socket has room
     */
    private boolean writable() {
        if (sendError != 0) {
            return true;
        }
        return switch (rawWriteWait) {
            case RAW_WRITE_AFTER_STAGED -> !sending && !outputPending();
            case RAW_WRITE_AFTER_ROOM -> !pollingOut;
            default -> room() > 0;
        };
    }

    @Override
    void sendBufferSet(int bytes) {
        stagedLimit = Math.max(1, Math.min(SEND_BYTES, bytes));
    }

    @Override
    boolean outputPending() {
        return stagedEnd > sendStart && sendError == 0;
    }

    /** {@inheritDoc} {@link ChannelOption#SEND_ZC_THRESHOLD} is the socket's own; the rest are the kernel's. */
    @Override
    public <T> boolean setOption(ChannelOption<T> option, T value) throws IOException {
        if (option == ChannelOption.SEND_ZC_THRESHOLD) {
            int bytes = (Integer) value;
            if (bytes < 0) {
                throw new IllegalArgumentException("SEND_ZC_THRESHOLD is a byte count, or 0 for never; got " + bytes);
            }
            liveFd("setOption");
            ZeroCopy zc = zeroCopy;
            if (zc == null && bytes > 0) {
                zc = new ZeroCopy();
                zc.threshold = bytes;
                zeroCopy = zc;
            } else if (zc != null) {
                zc.threshold = bytes;
            }
            return true;
        }
        return super.setOption(option, value);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T getOption(ChannelOption<T> option) throws IOException {
        if (option == ChannelOption.SEND_ZC_THRESHOLD) {
            liveFd("getOption");
            ZeroCopy zc = zeroCopy;
            return (T) Integer.valueOf(zc == null ? 0 : zc.threshold);
        }
        return super.getOption(option);
    }

    /**
     * {@code sendfile(2)} from the file's own descriptor into the socket, on the loop thread, once the bytes staged
     * before it are sent (they go first): no byte passes through Java memory. A full socket answers 0 and one
     * {@code IORING_OP_POLL_ADD} for {@code POLLOUT} waits; its completion is the write readiness the core waits for.
     * A file whose file system cannot splice ({@code EINVAL}, e.g. most of {@code /proc}) or a {@code FileChannel}
     * that is not the JDK's is read into the send buffer instead and sent like any bytes.
     *
     * @return bytes taken; 0 when the socket is full, staged bytes go first, or the file has no byte at
     *         {@code position}
     */
    @Override
    public long transferFrom(FileChannel file, long position, long count) throws IOException {
        int fd = liveFd("sendfile");
        if (sendError != 0) {
            throw ERRORS.newIoException("send", sendError);
        }
        rawWriteWait = RAW_WRITE_NONE;
        int inFd = file == copiedFile ? -1 : Native.fileDescriptorOf(file);
        if (inFd < 0 || !file.isOpen()) {
            return copyFrom(file, position, count);
        }
        if (sending || outputPending()) {
            if (file.size() < position + count) {
                // the core takes 0 from a file this short as the end of the region: a file whose size tells nothing
                // (most of /proc, which sendfile refuses too) is copied, in order behind the staged bytes
                return copyFrom(file, position, count);
            }
            rawWriteWait = RAW_WRITE_AFTER_STAGED; // the send completion that empties the buffer reports readiness
            return 0;
        }
        long n;
        do {
            SENDFILE_CALLS.incrementAndGet();
            n = Native.sendfile(fd, inFd, position, count);
        } while (n == -NativeAbi.EINTR);
        if (n >= 0) {
            return n; // 0: no byte at position (the core then checks for a short file)
        }
        if (n == -NativeAbi.EAGAIN) {
            awaitRoom();
            return 0;
        }
        if (n == -NativeAbi.EINVAL || n == -NativeAbi.ENOSYS || n == -NativeAbi.EOPNOTSUPP) {
            copiedFile = file; // this file system cannot splice: copy its regions
            return copyFrom(file, position, count);
        }
        throw ERRORS.newIoException("sendfile", (int) n);
    }

    /** A file region read into the send buffer, then sent like any bytes (after the bytes staged before it). */
    private long copyFrom(FileChannel file, long position, long count) throws IOException {
        FILE_COPY_CALLS.incrementAndGet();
        if (sendBuffer == null) {
            lendSendBuffer(SEND_BYTES);
        } else if (sendBuffer.capacity() < SEND_BYTES && !sending) {
            growSendBuffer();
        }
        if (!sending && sendStart > 0) {
            compact();
        }
        int room = (int) Math.min(room(), count);
        if (room <= 0) {
            return 0;
        }
        ByteBuffer window = sendBuffer.duplicate();
        window.position(stagedEnd).limit(stagedEnd + room);
        int n = file.read(window, position);
        if (n <= 0) {
            return 0;
        }
        stagedEnd += n;
        if (!sending) {
            send();
        }
        return n;
    }

    /** Waits for room: one {@code IORING_OP_POLL_ADD} for {@code POLLOUT} (unless one is in flight). */
    private void awaitRoom() throws IOException {
        rawWriteWait = RAW_WRITE_AFTER_ROOM;
        if (!pollingOut && canSubmit()) {
            submit(REQ_POLL_OUT, NativeAbi.IORING_OP_POLL_ADD, 0, 0, 0, NativeAbi.POLLOUT, 0);
            pollingOut = true;
        }
    }

    // ------------------------------------------------------------------------------------------ splicing

    /** @return {@code true} when both are TCP sockets of this transport (Unix-domain and mixed pairs keep copying) */
    @Override
    public boolean canSpliceTo(IoStreamSocket target) {
        return target instanceof IoUringStreamSocket t && t != this && kind == TCP && t.kind == TCP;
    }

    /**
     * A pipe from this socket's input to {@code target}; from now on no receive is submitted for this socket. The
     * bytes of a receive already made (or in flight) are forwarded first, through the pipe.
     */
    @Override
    public IoSplicePipe newSplicePipe(IoStreamSocket target) {
        if (!canSpliceTo(target)) {
            throw new IllegalArgumentException("io_uring splices only from one TCP socket to another, not to " + target);
        }
        splicing = true;
        readInline = false; // the input goes to the pipe now
        stopReceiving(); // a multishot receive would go on taking input; what it took goes into the pipe first
        return new IoUringSplicePipe(this, (IoUringStreamSocket) target);
    }

    /**
     * Moves input into a forwarding's pipe ({@link IoUringSplicePipe#fill()}): first the bytes a receive brought
     * before the forwarding began ({@code write(2)} into the pipe, a copy of at most one receive), then
     * {@code splice(2)} from the socket. While a receive is still in flight nothing is spliced: its bytes came first,
     * and its completion reports read readiness. An empty socket answers 0 and one {@code IORING_OP_POLL_ADD} for
     * {@code POLLIN} waits.
     *
     * @param pipeFd the pipe's write end, empty
     * @return bytes moved, 0 when none are there now, -1 at end of stream
     * @throws IOException when the socket failed (a receive's error too)
     */
    long spliceInto(int pipeFd, int bytes) throws IOException {
        int fd = liveFd("splice");
        int available = receivedEnd - receivedStart;
        if (available > 0) {
            int n;
            do {
                n = Native.write(pipeFd, Native.addressOf(received) + receivedStart, available);
            } while (n == -NativeAbi.EINTR);
            if (n <= 0) {
                throw ERRORS.newIoException("write(received bytes to the splice pipe)", n == 0 ? -NativeAbi.EAGAIN : n);
            }
            RECEIVED_BYTES_PIPED.addAndGet(n);
            receivedStart += n;
            if (receivedStart == receivedEnd) {
                receivedStart = 0;
                receivedEnd = 0;
                giveBackHeldBuffer();
                returnReceiveBuffer();
                takeQueued(); // buffers a multishot receive queued go into the pipe next, in order
            }
            return n;
        }
        if (receiving) {
            return 0; // the receive in flight reports the next input
        }
        if (receiveError != 0) {
            throw ERRORS.newIoException("recv (before splice)", receiveError);
        }
        if (endOfStream) {
            return -1;
        }
        inputReady = false;
        long n;
        do {
            n = Native.splice(fd, -1, pipeFd, -1, bytes, IoUringSplicePipe.FLAGS);
        } while (n == -NativeAbi.EINTR);
        if (n > 0) {
            return n;
        }
        if (n == 0) {
            endOfStream = true;
            return -1;
        }
        if (n == -NativeAbi.EAGAIN) {
            awaitInput();
            return 0;
        }
        throw ERRORS.newIoException("splice(socket to pipe)", (int) n);
    }

    /**
     * Moves bytes from a forwarding's pipe into this socket ({@link IoUringSplicePipe#drain()}) with
     * {@code splice(2)}, once the bytes staged before are sent (they go first). A full socket answers 0 and one
     * {@code IORING_OP_POLL_ADD} for {@code POLLOUT} waits.
     *
     * @param pipeFd the pipe's read end
     * @return bytes moved; 0 when the socket is full or staged bytes go first
     * @throws IOException when the socket failed
     */
    long spliceFrom(int pipeFd, long bytes) throws IOException {
        int fd = liveFd("splice");
        if (sendError != 0) {
            throw ERRORS.newIoException("send (before splice)", sendError);
        }
        rawWriteWait = RAW_WRITE_NONE;
        if (sending || outputPending()) {
            rawWriteWait = RAW_WRITE_AFTER_STAGED;
            return 0;
        }
        long n;
        do {
            n = Native.splice(pipeFd, -1, fd, -1, bytes, IoUringSplicePipe.FLAGS);
        } while (n == -NativeAbi.EINTR);
        if (n >= 0) {
            if (n < bytes) {
                // the socket took part: it is full now, and the forwarding waits for room, which on a completion
                // transport only a poll reports (epoll's edge comes by itself)
                awaitRoom();
            }
            return n;
        }
        if (n == -NativeAbi.EAGAIN) {
            awaitRoom();
            return 0;
        }
        throw ERRORS.newIoException("splice(pipe to socket)", (int) n);
    }

    /** The forwarding's pipe closed: the socket receives again if the core still reads it. */
    void spliceEnded() {
        if (!splicing) {
            return;
        }
        splicing = false;
        inputReady = false;
        if (canSubmit() && wants(OP_READ)) {
            resubmitReceive();
        }
    }

    /** Waits for input: one {@code IORING_OP_POLL_ADD} for {@code POLLIN} (unless it or a receive is in flight). */
    private void awaitInput() throws IOException {
        if (!pollingIn && !receiving && canSubmit()) {
            submit(REQ_POLL_IN, NativeAbi.IORING_OP_POLL_ADD, 0, 0, 0, NativeAbi.POLLIN, 0);
            pollingIn = true;
        }
    }

    // ------------------------------------------------------------------------------------------- connect

    @Override
    public boolean connect(SocketAddress remoteAddress, SocketAddress localAddress) throws IOException {
        AddressErrors.check(remoteAddress, addressKind(), true);
        if (localAddress != null) {
            bind(localAddress);
        }
        liveFd("connect");
        if (!canSubmit()) {
            throw new IllegalStateException("connect of an io_uring socket needs its loop: register it first");
        }
        Connect c = new Connect(ByteBuffer.allocateDirect(SOCKADDR.storageSize()).order(java.nio.ByteOrder.nativeOrder()));
        int len = SOCKADDR.encode(remoteAddress, c.address, 0, ipv6());
        submit(REQ_CONNECT, NativeAbi.IORING_OP_CONNECT, Native.addressOf(c.address), 0, len, 0, 0);
        connect = c;
        return false;
    }

    @Override
    public boolean finishConnect() throws IOException {
        if (connected) {
            return true;
        }
        Connect c = connect;
        if (c == null || !c.done) {
            return false;
        }
        if (c.result < 0) {
            throw ERRORS.newConnectException("connect", c.result);
        }
        connected = true;
        if (wants(OP_READ)) {
            receive();
        }
        return true;
    }

    @Override
    public boolean isConnected() {
        return connected;
    }

    @Override
    public SocketAddress remoteAddress() {
        return connected ? peerAddress() : null;
    }

    /**
     * {@code getsockopt(SO_PEERCRED)}, {@code unix(7)}: the credentials the peer had when it connected.
     *
     * @throws UnsupportedOperationException on a TCP socket
     * @throws IllegalStateException when the socket is closed or not connected
     */
    @Override
    public PeerCredentials peerCredentials() {
        return NativeAbi.SOCKETS.peerCredentials(fd(), domain, isOpen());
    }

    // ------------------------------------------------------------------------------------------ shutdown

    @Override
    public void shutdownInput() throws IOException {
        NativeAbi.SOCKETS.shutdownInput(liveFd("shutdown(SHUT_RD)"));
    }

    /** {@code shutdown(SHUT_WR)} once the staged bytes are sent (at once when none are). */
    @Override
    public void shutdownOutput() throws IOException {
        int fd = liveFd("shutdown(SHUT_WR)");
        if (outputPending()) {
            shutdownOutputWhenSent = true;
            return;
        }
        NativeAbi.SOCKETS.shutdownOutput(fd);
    }

    // ----------------------------------------------------------------------------------------- completions

    @Override
    void onCompletion(int op, int res, int flags) {
        switch (op) {
            case REQ_RECV -> received(res, flags);
            case REQ_SEND -> sendCompleted(res, flags);
            case REQ_CONNECT -> connectCompleted(res);
            case REQ_POLL_IN -> inputPolled(res);
            case REQ_POLL_OUT -> roomPolled(res);
            default -> {
            }
        }
    }

    private void received(int res, int flags) {
        IoUringBufferRing ring = receivingRing;
        boolean wasMultishot = receivingMultishot;
        boolean more = (flags & NativeAbi.IORING_CQE_F_MORE) != 0;
        if (!more) {
            receiving = false;
            receivingRing = null;
            receivingMultishot = false;
            stopping = false;
        }
        int bid = (flags & NativeAbi.IORING_CQE_F_BUFFER) != 0 && ring != null
                ? flags >>> NativeAbi.IORING_CQE_BUFFER_SHIFT : -1;
        if (bid >= 0 && (res <= 0 || liveEvents() == null)) {
            ring.provide(bid); // nothing in it, or nobody reads it any more
            bid = -1;
        }
        if (res > 0 && liveEvents() == null) {
            return; // deregistered: the bytes are dropped with the connection
        }
        if (res > 0) {
            // more than a small ring buffer holds (or a full one) came at once: the connection streams
            receiveLarge = res >= IoUringBufferRing.BUFFER_BYTES;
            if (receivedEnd > receivedStart) {
                // a multishot receive went on while bytes before these are unread: they wait in order, and the
                // receive stops, so a connection the core does not read takes no more of the loop's ring
                enqueue(ring, bid, res);
                stopReceiving();
            } else if (bid >= 0) {
                hold(ring, bid, res);
            } else {
                receivedStart = 0;
                receivedEnd = res;
                received = receiveBuffer;
            }
            if (receiveLarge) {
                stopReceiving(); // the connection streams: its next receive names the ring of large buffers
            }
        } else if (res == -NativeAbi.ENOBUFS) {
            if (ring != null && ring.group() == IoUringBufferRing.LARGE_GROUP) {
                LARGE_RING_EMPTY.incrementAndGet();
                receiveLarge = false; // the large ring is empty: this receive goes to the small one
            } else {
                RECEIVE_RING_EMPTY.incrementAndGet();
                receiveOwnBufferOnce = true; // the loop's ring is empty: this receive uses the socket's own buffer
            }
            if (receivedEnd > receivedStart) {
                return; // bytes still unread: the read that takes the last of them submits the receive
            }
            if (!splicing && resubmitReceive()) {
                return; // (a splicing socket's next fill splices instead)
            }
        } else if (res == 0) {
            endOfStream = true;
        } else if (res == -NativeAbi.ECANCELED) {
            if (receivedEnd > receivedStart) {
                return;
            }
            if (!splicing) {
                resubmitReceive(); // a stopped multishot receive whose bytes were all read meanwhile (none when deregistered)
                return;
            }
            // a forwarding stopped the receive: its next fill splices (read readiness below)
        } else if (res == -NativeAbi.EAGAIN || res == -NativeAbi.EINTR
                || (res == -NativeAbi.EINVAL && wasMultishot)) {
            if (res == -NativeAbi.EINVAL) {
                multishot = false; // a kernel before 6.0
            }
            if (receivedEnd > receivedStart) {
                return;
            }
            if (!splicing && resubmitReceive()) {
                return;
            }
        } else {
            receiveError = res;
        }
        IoEvents e = liveEvents();
        if (e != null && wants(OP_READ)) {
            e.readReady();
            if (wants(OP_READ) && readable() && liveEvents() != null) {
                handler().readyAgain(this);
            }
        }
    }

    /**
     * Submits the next receive from a completion; a failure (no direct memory for the own buffer, a full SQ) is
     * kept as the receive's error, which the next read throws, so the channel closes instead of waiting for good.
     *
     * @return {@code true} when submitted (or nothing to submit); {@code false} when it failed
     */
    private boolean resubmitReceive() {
        try {
            receive();
            return true;
        } catch (IOException ex) {
            receiveError = ex.getCause() instanceof OutOfMemoryError ? -NativeAbi.ENOMEM : -NativeAbi.EBUSY;
            return false;
        }
    }

    private void sent(int res) {
        sending = false;
        if (res >= 0) {
            sendStart += res;
            if (sendStart == stagedEnd) {
                sendStart = 0;
                sendEnd = 0;
                stagedEnd = 0;
            }
        } else if (res != -NativeAbi.EINTR && res != -NativeAbi.EAGAIN) {
            sendError = res == -NativeAbi.ECANCELED ? -NativeAbi.ECANCELED : res;
            sendStart = 0;
            sendEnd = 0;
            stagedEnd = 0;
        }
        if (growSendBuffer && outputPending() && handler() != null) {
            try {
                growSendBuffer(); // the writer wanted more room than the small buffer has
            } catch (IOException ex) {
                sendError = -NativeAbi.ENOMEM; // no direct memory: the next write fails the connection
            }
        }
        growSendBuffer = false;
        if (outputPending() && handler() != null) {
            try {
                send();
            } catch (IOException ex) {
                sendError = -NativeAbi.EBUSY;
            }
        }
        if (!outputPending() && shutdownOutputWhenSent) {
            shutdownOutputWhenSent = false;
            Native.shutdown(fd(), NativeAbi.SHUT_WR);
        }
        if (!sending && handler() != null) {
            returnSendBuffer(); // all sent (or failed): an idle connection holds no buffer
        }
        IoEvents e = liveEvents();
        if (e != null && wants(OP_WRITE) && writable()) {
            e.writeReady();
        }
    }

    private boolean connectDone() {
        return connect != null && connect.done;
    }

    /** The {@code POLLIN} poll completed (input, end of stream or an error): the next fill splices. */
    private void inputPolled(int res) {
        pollingIn = false;
        if (res == -NativeAbi.ECANCELED) {
            return;
        }
        inputReady = true;
        IoEvents e = liveEvents();
        if (e != null && wants(OP_READ) && splicing) {
            e.readReady();
            if (wants(OP_READ) && readable() && liveEvents() != null) {
                handler().readyAgain(this);
            }
        }
    }

    /** The {@code POLLOUT} poll completed (room, or an error the next call reports): write readiness. */
    private void roomPolled(int res) {
        pollingOut = false;
        IoEvents e = liveEvents();
        if (res != -NativeAbi.ECANCELED && e != null && wants(OP_WRITE) && writable()) {
            e.writeReady();
        }
    }

    private void connectCompleted(int res) {
        connect.done = true;
        connect.result = res;
        IoEvents e = liveEvents();
        if (e != null && wants(OP_CONNECT)) {
            e.connectReady();
        }
    }

    @Override
    void interestChanged(int old, int now) {
        if ((old & ~now & OP_READ) != 0) {
            stopReceiving(); // the core stops reading: a multishot receive would go on filling the loop's ring
        }
        int added = now & ~old;
        if (added == 0) {
            return;
        }
        if ((added & OP_READ) != 0) {
            if (readable()) {
                handler().readyAgain(this);
            } else if (splicing) {
                try {
                    awaitInput();
                } catch (IOException ex) {
                    receiveError = -NativeAbi.EBUSY; // the SQ is full: the next fill fails the forwarding
                    handler().readyAgain(this);
                }
            } else {
                resubmitReceive();
            }
        }
        if ((added & OP_WRITE) != 0 && writable()) {
            handler().readyAgain(this);
        }
        if ((added & OP_CONNECT) != 0 && connectDone()) {
            handler().readyAgain(this);
        }
    }

    @Override
    void dispatchReady() {
        IoEvents e = liveEvents();
        if (e == null) {
            return;
        }
        if (wants(OP_CONNECT) && connectDone()) {
            e.connectReady();
        } else if (wants(OP_WRITE) && writable()) {
            e.writeReady();
        }
        if (wants(OP_READ) && readable() && liveEvents() != null) {
            e.readReady();
            if (wants(OP_READ) && readable() && liveEvents() != null) {
                handler().readyAgain(this);
            }
        }
    }

    @Override
    void cancelInFlight() {
        if (receiving) {
            cancel(REQ_RECV);
        }
        if (connect != null && !connect.done) {
            cancel(REQ_CONNECT);
        }
        if (pollingIn) {
            cancel(REQ_POLL_IN);
        }
        if (pollingOut) {
            cancel(REQ_POLL_OUT);
        }
    }

    @Override
    void abort() {
        cancelInFlight();
        if (sending) {
            cancel(REQ_SEND);
        }
        sendError = -NativeAbi.ECANCELED; // nothing more is sent
    }
}
