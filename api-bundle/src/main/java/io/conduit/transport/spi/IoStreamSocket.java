package io.conduit.transport.spi;

import org.osgi.annotation.versioning.ConsumerType;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.net.SocketAddress;

/**
 * A connected (or connecting) stream socket: TCP or a Unix-domain stream socket. Non-blocking semantics;
 * loop thread only (see {@link IoSocket}).
 */
@ConsumerType
public interface IoStreamSocket extends IoSocket {

    /**
     * {@code read(2)} into {@code dst} from its position to its limit.
     *
     * @return bytes read ({@code > 0}), {@code 0} when nothing is available now, {@code -1} on end-of-stream
     */
    int read(ByteBuffer dst) throws IOException;

    /**
     * Gathering {@code writev(2)} of {@code srcs[offset .. offset+length)}; buffer positions advance.
     *
     * @return bytes the socket accepted, {@code 0} when its send buffer is full
     */
    long write(ByteBuffer[] srcs, int offset, int length) throws IOException;

    /**
     * Zero-copy transfer ({@code sendfile(2)}, {@link FileChannel#transferTo}) of up to {@code count} bytes at
     * {@code position} of {@code file}.
     *
     * @return bytes transferred; {@code 0} when the socket is full or the file has no byte at {@code position}
     */
    long transferFrom(FileChannel file, long position, long count) throws IOException;

    /**
     * Starts a non-blocking connect, optionally from {@code localAddress} ({@code null} = any).
     *
     * @return {@code true} when connected at once; {@code false} when pending (wait for
     *         {@link IoEvents#connectReady()}, then call {@link #finishConnect()})
     */
    boolean connect(SocketAddress remoteAddress, SocketAddress localAddress) throws IOException;

    /**
     * @return {@code true} when the connect completed, {@code false} when still pending
     * @throws IOException when it failed (e.g. {@link java.net.ConnectException} "Connection refused")
     */
    boolean finishConnect() throws IOException;

    /** @return {@code true} once connected */
    boolean isConnected();

    /** {@code shutdown(SHUT_RD)}. */
    void shutdownInput() throws IOException;

    /** {@code shutdown(SHUT_WR)}: the peer reads end-of-stream once the send buffer drained. */
    void shutdownOutput() throws IOException;
}
