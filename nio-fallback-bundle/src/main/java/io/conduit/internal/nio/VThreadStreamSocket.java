package io.conduit.internal.nio;

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

    // connect, guarded by lock
    private boolean connectDone;
    private IOException connectError;

    VThreadStreamSocket(SocketChannel ch) throws IOException {
        super(ch);
        this.ch = ch;
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
                    while (open && (filling == null || filling.position() == 0) && !shutdownRequested) {
                        await(outputStaged);
                    }
                    if (!open) {
                        return;
                    }
                    if (filling == null || filling.position() == 0) {
                        shutdown = true; // drained, then shut down as asked
                        stage = null;
                    } else {
                        stage = filling;
                        filling = spare;
                        spare = null;
                        writing = true;
                    }
                } finally {
                    lock.unlock();
                }
                if (shutdown) {
                    ch.shutdownOutput();
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
            lock.lock();
            try {
                writing = false;
                if (open) {
                    writeError = e;
                }
            } finally {
                lock.unlock();
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

    // -------------------------------------------------------------------------------------------- connect

    @Override
    public boolean connect(SocketAddress remoteAddress, SocketAddress localAddress) throws IOException {
        if (localAddress != null) {
            ch.bind(localAddress);
        }
        VirtualThreads.start("conduit-vthread-connect-" + socketId, () -> {
            IOException failure = null;
            try {
                ch.connect(remoteAddress);
            } catch (IOException e) {
                failure = e;
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
            if (connectError != null) {
                throw connectError;
            }
        } finally {
            lock.unlock();
        }
        startThreads();
        return true;
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
