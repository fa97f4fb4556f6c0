package io.conduit.internal.nio;

import io.conduit.transport.spi.AddressErrors;
import io.conduit.transport.spi.IoStreamSocket;

import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SocketChannel;

/**
 * A TCP or Unix-domain stream socket of {@code nio-vthread}: one virtual thread blocks in {@code read} and
 * stages what it got ({@value #IN_STAGE_BYTES} bytes at most, then waits until the loop took it); a second one,
 * started with the first, writes what the loop staged ({@value #OUT_STAGE_BYTES} bytes per stage, double
 * buffered) with blocking writes. A connect runs on its own short-lived virtual thread. Idle connections
 * therefore cost two parked virtual threads and no carrier thread.
 *
 * <p>Threading: staging fields are guarded by {@link #lock}; the {@code IoStreamSocket} methods run on the loop.
 */
final class VThreadStreamSocket extends VThreadSocket implements IoStreamSocket {

    /** Input staging buffer size, in bytes. */
    static final int IN_STAGE_BYTES = 16 * 1024;
    /** Output staging buffer size (each of two), in bytes. */
    static final int OUT_STAGE_BYTES = 32 * 1024;

    private final SocketChannel ch;
    /** "TCP" or "Unix-domain", for address checks; immutable */
    private final String kind;

    // input, guarded by lock
    private ByteBuffer in;               // read mode while inHasData
    private boolean inHasData;
    private boolean eof;
    private IOException readError;
    private boolean threadsStarted;      // loop-confined

    // output, guarded by lock
    private ByteBuffer filling;          // write mode: the loop appends here
    private ByteBuffer spare;            // an empty stage for the writer to swap in
    private boolean writing;             // the writer holds a stage
    private boolean shutdownRequested;
    private IOException writeError;
    private boolean writerStop;          // the writer ends at once
    private boolean drainThenClose;      // close() came with staged output: the writer sends it, then closes

    // connect, guarded by lock
    private boolean connectDone;
    private Exception connectError;      // an IOException, or a RuntimeException java.nio threw

    /** @param unix {@code true} for an {@code AF_UNIX} channel */
    VThreadStreamSocket(SocketChannel ch, boolean unix) throws IOException {
        super(ch);
        this.ch = ch;
        this.kind = unix ? "Unix-domain" : "TCP";
        ch.configureBlocking(true);
    }

    @Override
    void registered() {
        if (ch.isConnected()) {
            startThreads();
        }
    }

    private void startThreads() {
        if (threadsStarted) {
            return;
        }
        threadsStarted = true;
        VirtualThreads.start("conduit-vthread-read-" + socketId, this::readLoop);
        VirtualThreads.start("conduit-vthread-write-" + socketId, this::writeLoop);
    }

    // ---------------------------------------------------------------------------------------------- input

    private void readLoop() {
        try {
            for (;;) {
                ByteBuffer buf;
                lock.lock();
                try {
                    while (open && ((interest & OP_READ) == 0 || inHasData || eof || readError != null)) {
                        await(inputWanted);
                    }
                    if (!open) {
                        return;
                    }
                    if (in == null) {
                        in = ByteBuffer.allocateDirect(IN_STAGE_BYTES);
                    }
                    buf = in;
                    buf.clear();
                } finally {
                    lock.unlock();
                }
                int n = ch.read(buf); // blocks; the loop does not touch `in` while inHasData is false
                lock.lock();
                try {
                    if (n < 0) {
                        eof = true;
                    } else if (n > 0) {
                        buf.flip();
                        inHasData = true;
                    }
                } finally {
                    lock.unlock();
                }
                post(this::deliverReadable);
                if (n < 0) {
                    return;
                }
            }
        } catch (IOException e) {
            lock.lock();
            try {
                if (open) {
                    readError = e;
                }
            } finally {
                lock.unlock();
            }
            post(this::deliverReadable);
        }
    }

    @Override
    boolean hasInput() {
        lock.lock();
        try {
            return inHasData || eof || readError != null;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        lock.lock();
        try {
            if (inHasData) {
                int n = Math.min(dst.remaining(), in.remaining());
                ByteBuffer slice = in.duplicate();
                slice.limit(slice.position() + n);
                dst.put(slice);
                in.position(in.position() + n);
                if (!in.hasRemaining()) {
                    inHasData = false;
                    inputWanted.signalAll();
                }
                return n;
            }
            if (readError != null) {
                IOException e = readError;
                readError = null;
                eof = true;
                throw e;
            }
            return eof ? -1 : 0;
        } finally {
            lock.unlock();
        }
    }

    // --------------------------------------------------------------------------------------------- output

    private void writeLoop() {
        try {
            for (;;) {
                ByteBuffer stage;
                boolean shutdown = false;
                lock.lock();
                try {
                    while (!writerStop && (filling == null || filling.position() == 0) && !shutdownRequested
                            && !drainThenClose) {
                        await(outputStaged);
                    }
                    if (writerStop) {
                        return;
                    }
                    if (filling == null || filling.position() == 0) {
                        if (drainThenClose) {
                            stage = null;
                            writerStop = true;
                        } else {
                            shutdown = true; // drained, then shut down as asked
                            stage = null;
                        }
                    } else {
                        stage = filling;
                        filling = spare;
                        spare = null;
                        writing = true;
                    }
                } finally {
                    lock.unlock();
                }
                if (stage == null && !shutdown) {
                    ch.close(); // close() waited for the staged bytes, as close(2) sends what write(2) accepted
                    return;
                }
                if (shutdown) {
                    ch.shutdownOutput(); // after every staged byte; close() closes the channel later
                    return;
                }
                stage.flip();
                while (stage.hasRemaining()) {
                    ch.write(stage); // blocks until the kernel took it
                }
                stage.clear();
                lock.lock();
                try {
                    writing = false;
                    if (filling == null) {
                        filling = stage;
                    } else {
                        spare = stage;
                    }
                } finally {
                    lock.unlock();
                }
                post(this::deliverWritable);
            }
        } catch (IOException e) {
            boolean closeNow;
            lock.lock();
            try {
                writing = false;
                closeNow = drainThenClose;
                if (open) {
                    writeError = e;
                }
            } finally {
                lock.unlock();
            }
            if (closeNow) {
                try {
                    ch.close();
                } catch (IOException ignored) {
                    // closing after a failed write: nothing more to do
                }
            }
            post(this::deliverWritable);
            post(this::deliverReadable);
        }
    }

    @Override
    boolean hasRoom() {
        lock.lock();
        try {
            return writeError != null || filling == null || filling.hasRemaining();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        lock.lock();
        try {
            if (writeError != null) {
                throw writeError;
            }
            if (filling == null) {
                filling = ByteBuffer.allocateDirect(OUT_STAGE_BYTES);
            }
            long copied = 0;
            for (int i = offset; i < offset + length && filling.hasRemaining(); i++) {
                ByteBuffer src = srcs[i];
                int n = Math.min(src.remaining(), filling.remaining());
                if (n < src.remaining()) {
                    ByteBuffer part = src.duplicate();
                    part.limit(part.position() + n);
                    filling.put(part);
                    src.position(src.position() + n);
                } else {
                    filling.put(src);
                }
                copied += n;
            }
            if (copied > 0) {
                outputStaged.signalAll();
            }
            return copied;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public long transferFrom(FileChannel file, long position, long count) throws IOException {
        lock.lock();
        try {
            if (writeError != null) {
                throw writeError;
            }
            if (filling == null) {
                filling = ByteBuffer.allocateDirect(OUT_STAGE_BYTES);
            }
            if (!filling.hasRemaining()) {
                return 0;
            }
            ByteBuffer part = filling.duplicate();
            part.limit(part.position() + (int) Math.min(part.remaining(), count));
            int n = file.read(part, position);
            if (n <= 0) {
                return 0; // end of file: the core checks the file size and fails the region
            }
            filling.position(filling.position() + n);
            outputStaged.signalAll();
            return n;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void shutdownOutput() throws IOException {
        lock.lock();
        try {
            shutdownRequested = true; // the writer shuts down after the staged bytes
            outputStaged.signalAll();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void shutdownInput() throws IOException {
        ch.shutdownInput();
    }

    /** Drain timeout of a close with staged output, in milliseconds (the kernel would also give up eventually). */
    static final long CLOSE_DRAIN_MILLIS = 10_000;

    /**
     * Like {@code close(2)}: output the loop already handed over is still sent (by the writer, which then closes
     * the channel; forced after {@link #CLOSE_DRAIN_MILLIS}), unless {@code SO_LINGER} is 0, which resets.
     */
    @Override
    public void close() throws IOException {
        boolean drain;
        lock.lock();
        try {
            open = false;
            Integer linger = null;
            try {
                linger = ch.isOpen() ? ch.getOption(java.net.StandardSocketOptions.SO_LINGER) : null;
            } catch (IOException | UnsupportedOperationException ignored) {
                // Unix-domain sockets have no SO_LINGER
            }
            drain = threadsStarted && ch.isOpen() && (linger == null || linger != 0)
                    && (writing || (filling != null && filling.position() > 0));
            if (drain) {
                drainThenClose = true;
            } else {
                writerStop = true;
            }
            inputWanted.signalAll();
            outputStaged.signalAll();
        } finally {
            lock.unlock();
        }
        if (!drain) {
            ch.close();
            return;
        }
        try {
            ch.shutdownInput(); // the reader ends; the writer finishes and closes
        } catch (IOException ignored) {
            // not connected any more: the writer's next write fails and closes
        }
        VirtualThreads.start("conduit-vthread-close-" + socketId, () -> {
            try {
                Thread.sleep(CLOSE_DRAIN_MILLIS);
                ch.close();
            } catch (InterruptedException | IOException ignored) {
                // best effort
            }
        });
    }

    // -------------------------------------------------------------------------------------------- connect

    @Override
    public boolean connect(SocketAddress remoteAddress, SocketAddress localAddress) throws IOException {
        // a bad address fails here, on the loop, at once: java.nio would throw it on the connect thread
        AddressErrors.check(remoteAddress, kind);
        if (localAddress != null) {
            AddressErrors.check(localAddress, kind);
            ch.bind(localAddress);
        }
        VirtualThreads.start("conduit-vthread-connect-" + socketId, () -> {
            Exception failure = null;
            try {
                ch.connect(remoteAddress);
            } catch (IOException | RuntimeException e) {
                failure = e; // whatever it is, the connect future must hear of it
            }
            lock.lock();
            try {
                connectError = failure;
                connectDone = true;
            } finally {
                lock.unlock();
            }
            post(this::deliverConnectable);
        });
        return false;
    }

    @Override
    boolean connectDone() {
        lock.lock();
        try {
            return connectDone;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean finishConnect() throws IOException {
        lock.lock();
        try {
            if (!connectDone) {
                return false;
            }
            if (connectError instanceof IOException) {
                throw (IOException) connectError;
            }
            if (connectError != null) {
                throw (RuntimeException) connectError;
            }
        } finally {
            lock.unlock();
        }
        startThreads();
        return true;
    }

    @Override
    public void bind(SocketAddress localAddress) throws IOException {
        AddressErrors.check(localAddress, kind);
        super.bind(localAddress);
    }

    @Override
    public boolean isConnected() {
        return ch.isConnected();
    }

    @Override
    public SocketAddress remoteAddress() {
        try {
            return ch.getRemoteAddress();
        } catch (IOException e) {
            return null;
        }
    }
}
