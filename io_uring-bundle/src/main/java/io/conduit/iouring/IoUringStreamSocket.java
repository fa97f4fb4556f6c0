package io.conduit.iouring;

import static io.conduit.iouring.NativeAbi.ERRORS;
import static io.conduit.iouring.NativeAbi.SOCKADDR;

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
 * <p><b>Receive size.</b> A receive starts with the ring of {@value IoUringBufferRing#BUFFER_BYTES}-byte buffers,
 * which suits many connections with small messages. A receive that filled such a buffer means more bytes were
 * waiting: the next receives name the loop's ring of {@value IoUringBufferRing#LARGE_BUFFER_BYTES}-byte buffers, as
 * long as each brings more than a small buffer holds, so a streaming connection needs an eighth of the requests,
 * completions and loop turns per byte. When the large ring is empty ({@code -ENOBUFS}) the receive is submitted
 * again on the small one; when that is empty, or the kernel has no provided buffer rings (before Linux 5.19), it goes
 * into {@link #RECEIVE_BYTES} of the socket's own. Nothing stalls, and a connection holds a ring buffer only while it
 * has bytes in it.
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
 * <p>Both buffers are lent by the loop ({@link IoUringIoHandler#lendBuffer}) while bytes are in them and given back
 * after, so an idle or closed connection holds none; when direct memory is exhausted, the connection fails with an
 * {@link IOException} and the loop goes on. The copies cost what a kernel send and receive buffer would; handing the core's own buffers to the kernel
 * (provided buffer rings, zero-copy send) is the next step.
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
    /** the send buffer: staged output, the in-flight part owned by the kernel */
    static final int SEND_BYTES = 128 * 1024;
    /**
     * the send buffer a connection starts with when what it writes fits: request and response traffic stays in it,
     * so hundreds of connections with a send in flight hold kilobytes each, not {@link #SEND_BYTES}
     */
    static final int SMALL_SEND_BYTES = 8 * 1024;
    /** {@code sendfile(2)} calls of file regions (test hook: the zero-copy path ran) */
    static final java.util.concurrent.atomic.AtomicLong SENDFILE_CALLS = new java.util.concurrent.atomic.AtomicLong();
    /** ring buffers stream sockets hold with received bytes in them, all loops (test hook: none is kept for good) */
    static final java.util.concurrent.atomic.AtomicLong RING_BUFFERS_HELD = new java.util.concurrent.atomic.AtomicLong();
    /** bytes received before a forwarding began, written into its pipe ahead of the spliced ones (test hook) */
    static final java.util.concurrent.atomic.AtomicLong RECEIVED_BYTES_PIPED = new java.util.concurrent.atomic.AtomicLong();
    /** file region reads through the send buffer: the file cannot be spliced, or is no JDK file (test hook) */
    static final java.util.concurrent.atomic.AtomicLong FILE_COPY_CALLS = new java.util.concurrent.atomic.AtomicLong();

    /** {@link #rawWriteWait}: no {@code sendfile(2)} or {@code splice(2)} into this socket waits */
    private static final int RAW_WRITE_NONE = 0;
    /** {@link #rawWriteWait}: it waits for the staged bytes to be sent, which go first */
    private static final int RAW_WRITE_AFTER_STAGED = 1;
    /** {@link #rawWriteWait}: it found the socket full and waits for the {@code POLLOUT} poll */
    private static final int RAW_WRITE_AFTER_ROOM = 2;

    private boolean connected;           // loop-confined
    // receiving (loop-confined)
    /** the socket's own receive buffer: made when the loop's provided buffer ring is empty or missing */
    private ByteBuffer receiveBuffer;
    private long receiveAddress;
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
    /** the next receive goes into {@link #receiveBuffer}: the ring was empty ({@code -ENOBUFS}) */
    private boolean receiveOwnBufferOnce;
    private boolean endOfStream;
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
    /**
     * the most bytes staged and not yet sent: {@link #SEND_BYTES}, or the {@code SO_SNDBUF} the application set (the
     * kernel then stops growing its own buffer too), so a small send buffer keeps its back-pressure; any thread
     * writes (options), the loop reads
     */
    private volatile int stagedLimit = SEND_BYTES;
    private boolean shutdownOutputWhenSent;
    // sendfile(2) and splice(2) into the socket, made on the loop thread (loop-confined)
    /** {@link #RAW_WRITE_NONE}, {@link #RAW_WRITE_AFTER_STAGED} or {@link #RAW_WRITE_AFTER_ROOM} */
    private int rawWriteWait;
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
    // connecting (loop-confined)
    private ByteBuffer connectAddress;
    private boolean connecting;
    private boolean connectDone;
    private int connectResult;

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
            int n = Math.min(dst.remaining(), available);
            dst.put(dst.position(), received, receivedStart, n);
            dst.position(dst.position() + n);
            receivedStart += n;
            if (receivedStart == receivedEnd) {
                receivedStart = 0;
                receivedEnd = 0;
                giveBackHeldBuffer();
                returnReceiveBuffer();
                receive();
            }
            return n;
        }
        if (receiveError != 0) {
            throw ERRORS.newIoException("recv", receiveError);
        }
        if (endOfStream) {
            return -1;
        }
        receive();
        return 0;
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
            submitSelectingBuffer(REQ_RECV, NativeAbi.IORING_OP_RECV, ring.group(), 0);
        } else {
            receiveOwnBufferOnce = false;
            if (receiveBuffer == null) {
                receiveBuffer = handler().lendBuffer(RECEIVE_BYTES);
                receiveAddress = Native.addressOf(receiveBuffer);
            }
            submit(REQ_RECV, NativeAbi.IORING_OP_RECV, receiveAddress, RECEIVE_BYTES, 0, 0, 0);
        }
        receivingRing = ring;
        receiving = true;
    }

    /** Gives the ring buffer whose bytes were all read back to the kernel. */
    private void giveBackHeldBuffer() {
        if (heldBuffer >= 0) {
            RING_BUFFERS_HELD.decrementAndGet();
            heldRing.provide(heldBuffer);
            heldBuffer = -1;
            heldRing = null;
        }
    }

    @Override
    void released() {
        giveBackHeldBuffer(); // the bytes in it will never be read
        receivedStart = 0;
        receivedEnd = 0;
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
            receiveAddress = 0;
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
        return receivedEnd > receivedStart || endOfStream || receiveError != 0 || (splicing && inputReady);
    }

    // ------------------------------------------------------------------------------------------- writing

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        liveFd("send");
        if (sendError != 0) {
            throw ERRORS.newIoException("send", sendError);
        }
        rawWriteWait = RAW_WRITE_NONE;
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
        submit(REQ_SEND, NativeAbi.IORING_OP_SEND, sendAddress + sendStart, sendEnd - sendStart, 0,
                NativeAbi.MSG_NOSIGNAL, 0);
        sending = true;
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
        connectAddress = ByteBuffer.allocateDirect(SOCKADDR.storageSize()).order(java.nio.ByteOrder.nativeOrder());
        int len = SOCKADDR.encode(remoteAddress, connectAddress, 0, ipv6());
        submit(REQ_CONNECT, NativeAbi.IORING_OP_CONNECT, Native.addressOf(connectAddress), 0, len, 0, 0);
        connecting = true;
        return false;
    }

    @Override
    public boolean finishConnect() throws IOException {
        if (connected) {
            return true;
        }
        if (!connectDone) {
            return false;
        }
        if (connectResult < 0) {
            throw ERRORS.newConnectException("connect", connectResult);
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
            case REQ_SEND -> sent(res);
            case REQ_CONNECT -> connectCompleted(res);
            case REQ_POLL_IN -> inputPolled(res);
            case REQ_POLL_OUT -> roomPolled(res);
            default -> {
            }
        }
    }

    private void received(int res, int flags) {
        receiving = false;
        IoUringBufferRing ring = receivingRing;
        receivingRing = null;
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
            receivedStart = 0;
            receivedEnd = res;
            if (bid >= 0) {
                heldBuffer = bid;
                heldRing = ring;
                RING_BUFFERS_HELD.incrementAndGet();
                received = ring.buffers();
                receivedStart = ring.offset(bid);
                receivedEnd = receivedStart + res;
            } else {
                received = receiveBuffer;
            }
        } else if (res == -NativeAbi.ENOBUFS) {
            if (ring != null && ring.group() == IoUringBufferRing.LARGE_GROUP) {
                LARGE_RING_EMPTY.incrementAndGet();
                receiveLarge = false; // the large ring is empty: this receive goes to the small one
            } else {
                RECEIVE_RING_EMPTY.incrementAndGet();
                receiveOwnBufferOnce = true; // the loop's ring is empty: this receive uses the socket's own buffer
            }
            if (!splicing && resubmitReceive()) {
                return; // (a splicing socket's next fill splices instead)
            }
        } else if (res == 0) {
            endOfStream = true;
        } else if (res == -NativeAbi.ECANCELED) {
            return;
        } else if (res == -NativeAbi.EAGAIN || res == -NativeAbi.EINTR) {
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
        connecting = false;
        connectDone = true;
        connectResult = res;
        IoEvents e = liveEvents();
        if (e != null && wants(OP_CONNECT)) {
            e.connectReady();
        }
    }

    @Override
    void interestChanged(int old, int now) {
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
        if ((added & OP_CONNECT) != 0 && connectDone) {
            handler().readyAgain(this);
        }
    }

    @Override
    void dispatchReady() {
        IoEvents e = liveEvents();
        if (e == null) {
            return;
        }
        if (wants(OP_CONNECT) && connectDone) {
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
        if (connecting) {
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
