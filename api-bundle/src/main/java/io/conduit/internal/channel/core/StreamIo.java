package io.conduit.internal.channel.core;

import io.conduit.buffer.Buffer;
import io.conduit.buffer.BufferAllocator;
import io.conduit.buffer.ReferenceCounted;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelClosedException;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.FileRegion;
import io.conduit.channel.InputShutdownEvent;
import io.conduit.channel.InputShutdownReadCompleteEvent;
import io.conduit.concurrent.Future;
import io.conduit.concurrent.Promise;
import io.conduit.internal.channel.OutboundBuffer;
import io.conduit.internal.channel.RecvSizer;
import io.conduit.transport.spi.IoSocket;
import io.conduit.transport.spi.IoSpliceSocket;
import io.conduit.transport.spi.IoStreamSocket;

import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * The I/O of a stream channel (TCP or Unix-domain stream): reads, read-ahead, half-closure, gathering writes,
 * {@link FileRegion}s, zero-copy forwarding and the connect ({@link ConnectOperation}).
 *
 * <ul>
 *   <li><b>reads</b>: nothing is delivered before {@code read()} or {@code AUTO_READ}; adaptive buffer sizes
 *       ({@link RecvSizer}); at most {@code MAX_MESSAGES_PER_READ} messages per read operation. With auto-read
 *       off and no read pending, the channel still reads ahead up to {@value #READ_AHEAD_MAX_BYTES} bytes (held,
 *       not delivered) so that end of stream is always noticed: then the held data is delivered, and end of stream
 *       handled (half-closure or close);</li>
 *   <li><b>half-closure</b> ({@code ALLOW_HALF_CLOSURE}): end of stream fires exactly one
 *       {@link InputShutdownEvent} then one {@link InputShutdownReadCompleteEvent} and stops polling input;</li>
 *   <li><b>writes</b>: gathering writes of at most {@link OutboundBuffer#IOV_MAX} buffers and an adaptive byte
 *       budget (twice {@code SO_SNDBUF} at first, then following what the socket accepted);</li>
 *   <li><b>an allocator that throws</b> during a read fires that exception once and closes the channel.</li>
 * </ul>
 */
final class StreamIo extends KindIo {

    /** Bytes a stream channel reads ahead (held, not delivered) while auto-read is off and no read is pending. */
    static final int READ_AHEAD_MAX_BYTES = 64 * 1024;
    /** Most held read-ahead buffers (bounds the count when an allocator hands out tiny buffers). */
    private static final int READ_AHEAD_MAX_BUFFERS = 4096;

    volatile boolean inputShutdown;            // written by the loop
    volatile boolean outputShutdown;           // written by the loop
    private RecvSizer recvSizer;               // loop-confined: created by the first read
    private boolean readInProgress;            // loop-confined: inside the read loop (read() there is noted only)
    private ArrayDeque<Buffer> heldReadsOrNull; // loop-confined: read-ahead, not yet delivered; null until needed
    private int heldBytes;                     // loop-confined
    private boolean heldEof;                   // loop-confined: end of stream was seen behind the held data
    private boolean inputShutdownFired;        // loop-confined
    private long maxBytesPerGatheringWrite;    // loop-confined: 0 = not computed yet
    private Promise<Void> shutdownOutputPromise; // loop-confined: shutdownOutput waiting for flushed data
    /** loop-confined: the pending connect, or {@code null}; set and cleared by {@link ConnectOperation} */
    ConnectOperation connecting;
    private SpliceForwarder spliceOut;         // loop-confined: forwards this channel's input, or null
    private SpliceForwarder spliceIn;          // loop-confined: splices into this channel's output, or null

    StreamIo(ChannelCore ch) {
        super(ch);
    }

    private IoStreamSocket socket() {
        return (IoStreamSocket) ch.socket;
    }

    // --------------------------------------------------------------------------------------------- reads

    @Override
    public void read() {
        if (readInProgress) {
            ch.readPending = true;
            return;
        }
        beginRead();
    }

    @Override
    void beginRead() {
        if (!ch.open || !ch.registered || inputShutdown) {
            return;
        }
        if (hasHeld() || heldEof) {
            deliverHeld();
            return;
        }
        ch.readPending = true;
        if (ch.active) {
            ch.setInterest(IoSocket.OP_READ, true);
        }
    }

    @Override
    void activeWithoutAutoRead() {
        ch.setInterest(IoSocket.OP_READ, true); // read-ahead keeps end of stream visible
    }

    @Override
    void stopReadingWithoutAutoRead() {
        // read interest stays: read-ahead keeps end of stream visible
    }

    @Override
    public void readReady() {
        if (!ch.open) {
            return;
        }
        if (spliceOut != null) {
            spliceOut.sourceReadable();
        } else {
            streamRead();
        }
    }

    private void streamRead() {
        if (inputShutdown) {
            ch.setInterest(IoSocket.OP_READ, false);
            return;
        }
        if (!wantsInput()) {
            readAhead();
            return;
        }
        if (hasHeld() || heldEof) {
            // Input was wanted again (auto-read turned on by another thread, whose read() task has not run yet):
            // what was read ahead came first, so it goes first, then the socket is read as usual.
            deliverHeld();
            if (!ch.open || inputShutdown || !ch.config.isAutoRead()) {
                return; // a read() request was satisfied by the held input
            }
        }
        IoStreamSocket s = socket();
        BufferAllocator alloc = ch.config.getAllocator();
        RecvSizer sizer = recvSizer();
        int maxMessages = ch.config.maxMessagesPerRead();
        int messages = 0;
        long total = 0;
        boolean eof = false;
        Throwable failure = null;
        ch.readPending = false;
        readInProgress = true;
        try {
            do {
                Buffer buf = ReadFailures.allocate(alloc, sizer.guess());
                int attempted = buf.writableBytes();
                int n = readInto(s, buf, attempted);
                if (n <= 0) {
                    buf.release();
                    eof = n < 0;
                    break;
                }
                buf.writerIndex(buf.writerIndex() + n);
                sizer.record(n, attempted);
                messages++;
                total += n;
                ch.bytesRead += n;
                ch.pipeline.fireChannelRead(buf);
                if (n < attempted) {
                    break; // drained
                }
            } while (messages < maxMessages && ch.open && !inputShutdown && ch.config.isAutoRead());
        } catch (Throwable t) {
            failure = t;
        } finally {
            readInProgress = false;
        }
        sizer.readComplete(total);
        ch.loopCounters.bytesRead(total);
        if (messages > 0) {
            ch.pipeline.fireChannelReadComplete();
        }
        if (failure != null) {
            countIoError(failure);
            // Whatever failed (the socket, or the allocator: e.g. a malformed conduit.leakDetection or the direct
            // memory cap), the input cannot be read: left open, the channel would fail the same way on every event
            // and the peer would wait forever. One exception, then the channel closes (Netty's closeOnRead).
            Throwable cause = ReadFailures.unwrap(failure);
            ch.pipeline.fireExceptionCaught(cause);
            if (ReadFailures.closesOnReadFailure(failure)) {
                ch.close0(cause, ReadFailures.reason(failure, "reading"), null);
            }
            return;
        }
        if (eof) {
            endOfStream();
            return;
        }
        if (messages == 0 && !ch.config.isAutoRead()) {
            ch.readPending = true; // the read() request is still open: nothing was delivered for it
        }
        // interest stays on: either more input is wanted, or read-ahead keeps end of stream visible
    }

    /** Auto-read off and no read pending: hold input (bounded) so that end of stream is still seen. */
    private void readAhead() {
        IoStreamSocket s = socket();
        BufferAllocator alloc = ch.config.getAllocator();
        RecvSizer sizer = recvSizer();
        if (heldReadsOrNull == null) {
            heldReadsOrNull = new ArrayDeque<>();
        }
        ArrayDeque<Buffer> heldReads = heldReadsOrNull;
        try {
            while (heldBytes < READ_AHEAD_MAX_BYTES && heldReads.size() < READ_AHEAD_MAX_BUFFERS) {
                Buffer buf = ReadFailures.allocate(alloc, Math.min(sizer.guess(), READ_AHEAD_MAX_BYTES - heldBytes));
                int attempted = buf.writableBytes();
                int n = readInto(s, buf, attempted);
                if (n <= 0) {
                    buf.release();
                    if (n < 0) {
                        heldEof = true;
                        ch.setInterest(IoSocket.OP_READ, false);
                        deliverHeld(); // the peer closed: the user learns it now, with every byte before it
                    }
                    return;
                }
                buf.writerIndex(buf.writerIndex() + n);
                ch.countRead(n);
                heldReads.add(buf);
                heldBytes += n;
            }
            ch.setInterest(IoSocket.OP_READ, false); // full: wait for read()
        } catch (Throwable t) {
            countIoError(t);
            Throwable cause = ReadFailures.unwrap(t);
            ch.pipeline.fireExceptionCaught(cause);
            if (ReadFailures.closesOnReadFailure(t)) {
                deliverHeld();
                // as in streamRead: it would fail again
                ch.close0(cause, ReadFailures.reason(t, "reading ahead"), null);
            }
        }
    }

    /** One {@code read(2)} into {@code buf}'s writable bytes; {@code buf} is released when the read throws. */
    private static int readInto(IoStreamSocket s, Buffer buf, int attempted) throws IOException {
        try {
            return s.read(buf.nioBuffer(buf.writerIndex(), attempted));
        } catch (Throwable t) {
            buf.release();
            throw t;
        }
    }

    private boolean hasHeld() {
        return heldReadsOrNull != null && !heldReadsOrNull.isEmpty();
    }

    /** @return the receive-size predictor, made on the first read */
    private RecvSizer recvSizer() {
        RecvSizer r = recvSizer;
        if (r == null) {
            r = new RecvSizer();
            recvSizer = r;
        }
        return r;
    }

    private void deliverHeld() {
        ch.readPending = false;
        boolean any = hasHeld();
        Buffer b;
        while (heldReadsOrNull != null && (b = heldReadsOrNull.poll()) != null) {
            heldBytes -= b.readableBytes();
            ch.pipeline.fireChannelRead(b);
        }
        if (any) {
            ch.pipeline.fireChannelReadComplete();
        }
        if (heldEof) {
            heldEof = false;
            endOfStream();
        } else if (ch.open && !inputShutdown && ch.active) {
            ch.setInterest(IoSocket.OP_READ, true);
        }
    }

    private void releaseHeld() {
        Buffer b;
        while (heldReadsOrNull != null && (b = heldReadsOrNull.poll()) != null) {
            ReferenceCounted.safeRelease(b);
        }
        heldBytes = 0;
    }

    private void endOfStream() {
        ch.setInterest(IoSocket.OP_READ, false);
        if (ch.config.allowHalfClosure()) {
            if (!inputShutdown) {
                inputShutdown = true;
                ch.readPending = false;
                fireInputShutdownEvents();
            }
        } else {
            ch.close0(null, "the peer closed the connection (end of stream; ALLOW_HALF_CLOSURE is off)", null);
        }
    }

    // ------------------------------------------------------------------------------------------ half-closure

    /** {@code shutdown(SHUT_RD)}: input stops; {@link InputShutdownEvent} fires once. Any thread. */
    Future<Void> shutdownInput() {
        return shutdownOnLoop("shutdownInput", true, false);
    }

    /** Fails unflushed writes, waits until the flushed ones are written, then {@code shutdown(SHUT_WR)}. Any thread. */
    Future<Void> shutdownOutput() {
        return shutdownOnLoop("shutdownOutput", false, true);
    }

    /** Shuts down both directions. Any thread. */
    Future<Void> shutdown() {
        return shutdownOnLoop("shutdown", true, true);
    }

    /**
     * Runs a shutdown on the loop unless its promise was cancelled on the way there (a successful cancel means it did
     * not happen): the input first, then the output.
     */
    private Future<Void> shutdownOnLoop(String operation, boolean input, boolean output) {
        Promise<Void> promise = ch.newPromise();
        ch.onLoop(() -> {
            if (!promise.setUncancellable()) {
                return;
            }
            if (input) {
                if (!ch.open) {
                    promise.tryFailure(ch.closedException(operation));
                    return;
                }
                shutdownInput0();
            }
            if (output) {
                shutdownOutput0(promise); // fails on a closed channel, naming shutdownOutput
            } else {
                promise.trySuccess(null);
            }
        }, promise);
        return promise;
    }

    private void shutdownInput0() {
        if (inputShutdown) {
            return;
        }
        inputShutdown = true;
        ch.readPending = false;
        ch.setInterest(IoSocket.OP_READ, false);
        releaseHeld();
        try {
            socket().shutdownInput();
        } catch (IOException e) {
            System.getLogger(StreamIo.class.getName()).log(System.Logger.Level.DEBUG,
                    "shutdownInput of " + ch + " failed", e);
        }
        fireInputShutdownEvents();
    }

    private void fireInputShutdownEvents() {
        if (!inputShutdownFired) {
            inputShutdownFired = true;
            ch.pipeline.fireUserEventTriggered(InputShutdownEvent.INSTANCE);
            ch.pipeline.fireUserEventTriggered(InputShutdownReadCompleteEvent.INSTANCE);
        }
    }

    private void shutdownOutput0(Promise<Void> promise) {
        if (!ch.open) {
            promise.tryFailure(ch.closedException("shutdownOutput"));
            return;
        }
        if (outputShutdown) {
            promise.trySuccess(null);
            return;
        }
        OutboundBuffer ob = outboundOrNull;
        if (ob != null && ob.failUnflushed(() -> new ChannelClosedException("write of channel " + ch.id()
                + " failed: the output was shut down before the write was flushed", null))) {
            ch.pipeline.fireChannelWritabilityChanged();
        }
        if (!flushedEmpty()) {
            shutdownOutputPromise = promise; // completed by flushed() once the flushed data is written
            return;
        }
        shutdownOutputNow(promise);
    }

    private void shutdownOutputNow(Promise<Void> promise) {
        outputShutdown = true;
        try {
            socket().shutdownOutput();
            promise.trySuccess(null);
        } catch (IOException e) {
            promise.tryFailure(e);
        }
    }

    @Override
    boolean outputShutdown() {
        return outputShutdown;
    }

    // ---------------------------------------------------------------------------------------------- writes

    @Override
    boolean accepts(Object msg) {
        return msg instanceof Buffer || msg instanceof FileRegion;
    }

    @Override
    String writableKinds() {
        return "a Buffer or a FileRegion";
    }

    @Override
    boolean write(OutboundBuffer outbound, int spins) throws IOException {
        while (spins > 0) {
            Object msg = outbound.current();
            if (msg == null) {
                return true;
            }
            if (msg instanceof Buffer b) {
                ByteBuffer[] iov = outbound.nioBuffers(gatheringBudget());
                int count = outbound.nioBufferCount();
                if (count == 0) {
                    if (outbound.removeBytes(0)) { // only empty buffers at the head: complete them
                        ch.pipeline.fireChannelWritabilityChanged();
                    }
                    if (b.refCnt() > 0 && b.readableBytes() == 0 && outbound.current() == msg) {
                        if (outbound.removeHead(null)) {
                            ch.pipeline.fireChannelWritabilityChanged();
                        }
                    }
                    continue;
                }
                long attempted = outbound.nioBufferSize();
                long written;
                try {
                    written = socket().write(iov, 0, count);
                } finally {
                    outbound.clearNioBuffers();
                }
                if (written <= 0) {
                    return false;
                }
                ch.countWritten(written);
                adaptGatheringBudget(attempted, written);
                if (outbound.removeBytes(written)) {
                    ch.pipeline.fireChannelWritabilityChanged();
                }
                spins--;
            } else {
                int progress = writeFileRegion(outbound, (FileRegion) msg);
                if (progress < 0) {
                    return false;
                }
                spins -= progress;
            }
        }
        return true;
    }

    /**
     * One {@code transferFrom} of the region at the head of {@code outbound}; a region written whole (or empty) is
     * removed, one whose file is shorter than its end fails.
     *
     * @return {@code -1} when the socket is full; else the write calls spent ({@code 0} for an empty region)
     */
    private int writeFileRegion(OutboundBuffer outbound, FileRegion r) throws IOException {
        long remaining = r.count() - r.transferred();
        if (remaining == 0) {
            if (outbound.removeHead(null)) {
                ch.pipeline.fireChannelWritabilityChanged();
            }
            return 0;
        }
        long position = r.position() + r.transferred();
        long n = socket().transferFrom(r.file(), position, remaining);
        if (n <= 0) {
            long size = r.file().size();
            if (size >= r.position() + r.count()) {
                return -1;
            }
            IOException shortFile = new IOException("file region of " + r.description()
                    + " cannot be written: the file is " + size + " bytes, shorter than the region end "
                    + (r.position() + r.count()) + " (position " + r.position() + " + count " + r.count()
                    + "); " + r.transferred() + " bytes were written");
            if (outbound.removeHead(shortFile)) {
                ch.pipeline.fireChannelWritabilityChanged();
            }
            return 1;
        }
        r.addTransferred(n);
        ch.countWritten(n);
        boolean changed = outbound.progressHead(n);
        if (r.transferred() == r.count()) {
            changed |= outbound.removeHead(null);
        }
        if (changed) {
            ch.pipeline.fireChannelWritabilityChanged();
        }
        return 1;
    }

    private long gatheringBudget() {
        if (maxBytesPerGatheringWrite == 0) {
            Integer sndbuf = null;
            try {
                sndbuf = ch.socket.getOption(ChannelOption.SO_SNDBUF);
            } catch (IOException | RuntimeException ignored) {
                // unknown: use the fallback below
            }
            maxBytesPerGatheringWrite = sndbuf != null && sndbuf > 0 ? (long) sndbuf << 1 : 256 * 1024;
        }
        return maxBytesPerGatheringWrite;
    }

    private void adaptGatheringBudget(long attempted, long written) {
        if (written == attempted) {
            if ((attempted << 1) > maxBytesPerGatheringWrite) {
                maxBytesPerGatheringWrite = Math.min(Integer.MAX_VALUE, attempted << 1);
            }
        } else if (attempted > 4096 && written < (attempted >>> 1)) {
            maxBytesPerGatheringWrite = attempted >>> 1;
        }
    }

    @Override
    void flushed() {
        if (shutdownOutputPromise != null && flushedEmpty() && ch.open) {
            Promise<Void> p = shutdownOutputPromise;
            shutdownOutputPromise = null;
            shutdownOutputNow(p);
        }
        if (spliceIn != null && flushedEmpty()) {
            spliceIn.targetWritable(); // the writes that went before spliced bytes are out
        }
    }

    @Override
    public void writeReady() {
        super.writeReady();
        if (spliceIn != null) {
            spliceIn.targetWritable();
        }
    }

    // ------------------------------------------------------------------------------------- connect, life

    @Override
    public void connect(SocketAddress remote, SocketAddress local, Promise<Void> promise) {
        ConnectOperation.start(this, remote, local, promise);
    }

    @Override
    public void connectEntered(Promise<Void> promise) {
        ConnectOperation.closeWhenCancelled(this, promise);
    }

    @Override
    public void connectReady() {
        ConnectOperation op = connecting;
        if (op == null) {
            ch.setInterest(IoSocket.OP_CONNECT, false);
        } else {
            op.ready();
        }
    }

    @Override
    boolean connectPending() {
        return connecting != null;
    }

    @Override
    boolean connectedBeforeActive() {
        return socket().isConnected();
    }

    @Override
    void bound(Promise<Void> promise) {
        promise.trySuccess(null); // a stream socket becomes active when it connects
    }

    @Override
    void keepRemote(SocketAddress remote) {
        ch.keepRemote(remote, true); // a stream's peer never changes: kept compactly
    }

    @Override
    void closeStarted() {
        if (spliceOut != null) {
            spliceOut.channelClosed(this);
        }
        if (spliceIn != null) {
            spliceIn.channelClosed(this);
        }
    }

    @Override
    void closing(Throwable cause) {
        ConnectOperation op = connecting;
        connecting = null;
        if (op != null) {
            op.abort(cause);
        }
        Promise<Void> sp = shutdownOutputPromise;
        shutdownOutputPromise = null;
        if (sp != null) {
            sp.tryFailure(ch.closedException("shutdownOutput"));
        }
    }

    @Override
    void closed() {
        releaseHeld();
        heldEof = false;
    }

    @Override
    int lingerOnClose() {
        return ch.linger();
    }

    // ------------------------------------------------------------------------------- zero-copy forwarding

    /**
     * Hands the poller the core's interest combined with zero-copy forwarding's: a forwarding source's read interest
     * belongs to its {@link SpliceForwarder}, and a splice target adds write interest while the pipe waits for room.
     */
    @Override
    int pollerInterest(int ops) {
        if (spliceOut != null) {
            ops = (ops & ~IoSocket.OP_READ) | (spliceOut.wantsSourceRead() ? IoSocket.OP_READ : 0);
        }
        if (spliceIn != null && spliceIn.wantsTargetWrite()) {
            ops |= IoSocket.OP_WRITE;
        }
        return ops;
    }

    /** @see io.conduit.channel.ZeroCopyForwarding#canForwardTo */
    boolean canForwardTo(Channel target) {
        return target instanceof ChannelCore t && t != ch && t.io instanceof StreamIo
                && ch.eventLoop() != null && t.eventLoop() == ch.eventLoop() && ch.open && t.isOpen()
                && spliceOut == null && ch.socket instanceof IoSpliceSocket s
                && s.canSpliceTo((IoStreamSocket) t.socket);
    }

    /** @see io.conduit.channel.ZeroCopyForwarding#forwardTo */
    Future<Void> forwardTo(Channel target) {
        Promise<Void> promise = ch.newPromise();
        if (!canForwardTo(target)) {
            promise.tryFailure(new UnsupportedOperationException("channel " + ch.id() + " (" + ch.transportName + ", "
                    + ch.type + ") cannot splice to " + target + ": zero-copy forwarding needs two open stream channels"
                    + " of one event loop whose transport splices between them (epoll or io_uring, TCP to TCP);"
                    + " copy instead"));
            return promise;
        }
        StreamIo t = (StreamIo) ((ChannelCore) target).io;
        ch.onLoop(() -> startForwarding(t, promise), promise);
        return promise;
    }

    private void startForwarding(StreamIo t, Promise<Void> promise) {
        if (!ch.open || !t.ch.open || !ch.active || !t.ch.active || t.outputShutdown
                || t.shutdownOutputPromise != null) {
            promise.tryFailure(new ChannelClosedException("zero-copy forwarding from " + ch + " to " + t.ch
                    + " cannot start: both channels must be connected, and the target's output open", null));
            return;
        }
        if (spliceOut != null || t.spliceIn != null) {
            promise.tryFailure(new IllegalStateException("channel " + (spliceOut != null ? ch.id() + " forwards"
                    : t.ch.id() + " receives forwarded bytes") + " already"));
            return;
        }
        if (hasHeld() || heldEof || inputShutdown) {
            deliverHeld(); // what was read ahead goes first, through the pipeline
            if (!ch.open || inputShutdown) {
                promise.trySuccess(null); // the end of stream was behind it: nothing is left to forward
                return;
            }
        }
        SpliceForwarder f = new SpliceForwarder(this, t,
                ((IoSpliceSocket) ch.socket).newSplicePipe((IoStreamSocket) t.ch.socket), promise);
        spliceOut = f;
        t.spliceIn = f;
        f.pump(); // input may be waiting already (an edge-triggered poller reports it only once)
    }

    /** @return {@code true} when this splice target has no flushed write left before spliced bytes */
    boolean spliceTargetReady() {
        return ch.open && flushedEmpty();
    }

    void spliceRead(long n) {
        ch.countRead(n);
    }

    void spliceWritten(long n) {
        ch.countWritten(n);
    }

    /** Forwarding ended at end of stream: handle it as a read would have. */
    void spliceEndOfStream() {
        if (ch.open && !inputShutdown) {
            endOfStream();
        }
    }

    /** Forwarding failed: fire the error where it happened ({@code here}), and close. */
    void spliceFailed(IOException cause, boolean here) {
        if (here) {
            ch.pipeline.fireExceptionCaught(cause);
        }
        ch.close0(cause, here ? "an I/O error while splicing" : "the channel it spliced with failed", null);
    }

    /** {@code f} no longer forwards from or to this channel: the core's own interest applies again. */
    void spliceDetached(SpliceForwarder f) {
        if (spliceOut == f) {
            spliceOut = null;
        }
        if (spliceIn == f) {
            spliceIn = null;
        }
        ch.applyInterest();
    }
}
