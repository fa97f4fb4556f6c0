package io.conduit.epoll;

import io.conduit.transport.spi.unix.IovArray;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * The epoll transport's I/O natives over a non-blocking Unix-domain {@code socketpair(2)}: one message of
 * {@code size} bytes written to one end and read back from the other, per operation, two ways each:
 *
 * <ul>
 *   <li>{@code *TwoCalls}: the address from {@link Native#addressOf} (one JNI call), then the system call's native
 *       with the address (a second one) — what the sockets did before;</li>
 *   <li>{@code *OneCall}: the {@code *Buffer} natives, which take the direct buffer with its position and limit
 *       and resolve the address in C, in the same call;</li>
 *   <li>the gathering write of the message split into {@code buffers} direct buffers, one {@code addressOf} per
 *       buffer into the {@link IovArray}, then {@code writev} ({@code writevAddressPerBuffer}) — what the stream
 *       socket does; a variant that filled the iovec in C from the {@code ByteBuffer[]} in one call measured
 *       slower from 8 buffers on and was removed (numbers in {@code docs/benchmarks.md}).</li>
 * </ul>
 *
 * The read back uses the one-call native in every variant, so the variants differ only in the write (or, for
 * {@code read*}, only in the read). This class lives in the transport's package to reach its package-private
 * facade; it runs on the class path ({@code benchmarks/jmh.sh EpollNativeIo}). Average time per operation in
 * nanoseconds.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class EpollNativeIoBenchmark {

    /** Bytes per message. */
    @Param({"64", "65536"})
    public int size;

    /** Direct buffers the message is split into for the gathering writes. */
    @Param({"1", "8"})
    public int buffers;

    private int writeFd;
    private int readFd;
    /** The write end of a second pair whose send buffer is full (its reader never reads): writes get EAGAIN. */
    private int fullFd;
    private int fullPeerFd;
    private ByteBuffer message;
    private ByteBuffer[] parts;
    private ByteBuffer in;
    private IovArray iov;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        Epoll.ensureAvailability();
        int[] fds = new int[2];
        check(Native.socketpair(NativeAbi.AF_UNIX, NativeAbi.SOCK_STREAM | NativeAbi.SOCK_NONBLOCK
                | NativeAbi.SOCK_CLOEXEC, 0, fds), "socketpair");
        writeFd = fds[0];
        readFd = fds[1];
        check(Native.setsockoptInt(writeFd, NativeAbi.SOL_SOCKET, NativeAbi.SO_SNDBUF, 4 << 20), "SO_SNDBUF");
        check(Native.setsockoptInt(readFd, NativeAbi.SOL_SOCKET, NativeAbi.SO_RCVBUF, 4 << 20), "SO_RCVBUF");
        message = ByteBuffer.allocateDirect(size);
        in = ByteBuffer.allocateDirect(size);
        if (size % buffers != 0) {
            throw new IllegalArgumentException(size + " bytes do not split into " + buffers + " buffers");
        }
        parts = new ByteBuffer[buffers];
        int part = size / buffers;
        for (int i = 0; i < buffers; i++) {
            parts[i] = message.slice(i * part, part);
        }
        iov = new IovArray(NativeAbi.IOV_MAX, NativeAbi.IOVEC);
        check(Native.socketpair(NativeAbi.AF_UNIX, NativeAbi.SOCK_STREAM | NativeAbi.SOCK_NONBLOCK
                | NativeAbi.SOCK_CLOEXEC, 0, fds), "socketpair");
        fullFd = fds[0];
        fullPeerFd = fds[1];
        ByteBuffer filler = ByteBuffer.allocateDirect(65536);
        while (Native.writeBuffer(fullFd, filler, 0, filler.capacity()) > 0) {
            // fill the send buffer (and the peer's receive queue) until the kernel says EAGAIN
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        Native.close(writeFd);
        Native.close(readFd);
        Native.close(fullFd);
        Native.close(fullPeerFd);
    }

    // The *Again benchmarks: the cheapest system calls there are (EAGAIN at once: an empty socket read, a full
    // socket written), so what differs between the variants (one or two JNI transitions, the cost per iovec) is
    // not buried under copying bytes. An event loop makes such calls too: the read that finds the
    // socket drained, the write that finds it full.

    @Benchmark
    public int readAgainTwoCalls() {
        return Native.read(readFd, Native.addressOf(in) + in.position(), in.remaining());
    }

    @Benchmark
    public int readAgainOneCall() {
        return Native.readBuffer(readFd, in, in.position(), in.limit());
    }

    @Benchmark
    public long writevAgainAddressPerBuffer() {
        iov.clear();
        for (ByteBuffer b : parts) {
            iov.add(Native.addressOf(b) + b.position(), b.remaining());
        }
        return Native.writev(fullFd, iov.address(), iov.count());
    }

    private static void check(int r, String call) throws IOException {
        if (r < 0) {
            throw NativeAbi.ERRORS.newIoException(call, r);
        }
    }

    /** Reads back {@code n} bytes (they are in the socket already: the pair is local). */
    private int drain(long n) {
        long left = n;
        while (left > 0) {
            int r = Native.readBuffer(readFd, in, 0, (int) Math.min(left, in.capacity()));
            if (r <= 0) {
                throw new IllegalStateException("read back returned " + r + " with " + left + " bytes left");
            }
            left -= r;
        }
        return (int) n;
    }

    @Benchmark
    public int writeTwoCalls() {
        return drain(Native.write(writeFd, Native.addressOf(message) + message.position(), message.remaining()));
    }

    @Benchmark
    public int writeOneCall() {
        return drain(Native.writeBuffer(writeFd, message, message.position(), message.limit()));
    }

    @Benchmark
    public int readTwoCalls() {
        int n = Native.writeBuffer(writeFd, message, 0, size);
        long left = n;
        while (left > 0) {
            int r = Native.read(readFd, Native.addressOf(in) + in.position(), (int) Math.min(left, in.remaining()));
            if (r <= 0) {
                throw new IllegalStateException("read returned " + r);
            }
            left -= r;
        }
        return n;
    }

    @Benchmark
    public int readOneCall() {
        int n = Native.writeBuffer(writeFd, message, 0, size);
        long left = n;
        while (left > 0) {
            int r = Native.readBuffer(readFd, in, in.position(), (int) Math.min(left, in.remaining()));
            if (r <= 0) {
                throw new IllegalStateException("read returned " + r);
            }
            left -= r;
        }
        return n;
    }

    @Benchmark
    public long writevAddressPerBuffer() {
        iov.clear();
        for (ByteBuffer b : parts) {
            iov.add(Native.addressOf(b) + b.position(), b.remaining());
        }
        return drain(Native.writev(writeFd, iov.address(), iov.count()));
    }
}
