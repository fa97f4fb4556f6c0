package io.conduit.epoll;

import io.conduit.channel.ChannelClosedException;
import io.conduit.transport.spi.unix.NativeIoException;

import java.io.IOException;
import java.net.BindException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.PortUnreachableException;

/**
 * The one mapping from native results ({@code -errno}, STYLE.md item 4) to values and typed exceptions. The
 * errno numbers come from the library ({@link Native}); the text is {@code strerror(3)} from the library, so
 * messages read like {@code connect(..) failed: Connection refused (errno 111)}.
 *
 * <p>Expected outcomes are values: callers test {@link #isAgain}, {@link #isInterrupted} or
 * {@link #isInProgress} before asking for an exception. Stateless and thread-safe.
 */
final class Errors {

    private Errors() {
    }

    /** @return {@code true} for {@code -EAGAIN}/{@code -EWOULDBLOCK}: try again when the fd is ready */
    static boolean isAgain(long result) {
        return result == -NativeAbi.EAGAIN || result == -NativeAbi.EWOULDBLOCK;
    }

    /** @return {@code true} for {@code -EINTR}: a signal interrupted the call; retry */
    static boolean isInterrupted(long result) {
        return result == -NativeAbi.EINTR;
    }

    /** @return {@code true} for {@code -EINPROGRESS}: a non-blocking connect has started */
    static boolean isInProgress(long result) {
        return result == -NativeAbi.EINPROGRESS;
    }

    /**
     * @param call the system call's name, e.g. {@code "write"}
     * @param errno the positive errno value
     * @return {@code <call>(..) failed: <strerror> (errno <n>)}
     */
    static String message(String call, int errno) {
        return call + "(..) failed: " + Native.strerror(errno) + " (errno " + errno + ")";
    }

    /**
     * @return {@code result} when it is &gt;= 0
     * @throws IOException typed by {@link #newIoException} otherwise
     */
    static int check(String call, int result) throws IOException {
        if (result < 0) {
            throw newIoException(call, result);
        }
        return result;
    }

    /** {@link #check(String, int)} for {@code long} results (readv, writev, sendfile, splice, read counters). */
    static long check(String call, long result) throws IOException {
        if (result < 0) {
            throw newIoException(call, (int) result);
        }
        return result;
    }

    /**
     * @return {@code result} when it is &gt;= 0
     * @throws IOException typed by {@link #newConnectException} otherwise
     */
    static int checkConnect(String call, int result) throws IOException {
        if (result < 0) {
            throw newConnectException(call, result);
        }
        return result;
    }

    /**
     * Exception for a failed connect ({@code connect}, {@code finishConnect}): {@code ECONNREFUSED},
     * {@code ETIMEDOUT} → {@link ConnectException}; {@code EHOSTUNREACH}/{@code ENETUNREACH} →
     * {@link NoRouteToHostException}; others as {@link #newIoException}.
     *
     * @param result the native result, {@code -errno}
     */
    static IOException newConnectException(String call, int result) {
        int errno = -result;
        if (errno == NativeAbi.ECONNREFUSED || errno == NativeAbi.ETIMEDOUT) {
            return new ConnectException(message(call, errno));
        }
        return newIoException(call, result);
    }

    /**
     * Exception for any other failed call: {@code ECONNREFUSED} (only reported on datagram sockets outside
     * connect) → {@link PortUnreachableException}; {@code EHOSTUNREACH}/{@code ENETUNREACH} →
     * {@link NoRouteToHostException}; {@code EADDRINUSE}/{@code EADDRNOTAVAIL} → {@link BindException};
     * {@code EBADF} → {@link ChannelClosedException}; every other errno → {@link NativeIoException} carrying it.
     *
     * @param result the native result, {@code -errno}
     */
    static IOException newIoException(String call, int result) {
        int errno = -result;
        String message = message(call, errno);
        if (errno == NativeAbi.ECONNREFUSED) {
            return new PortUnreachableException(message);
        }
        if (errno == NativeAbi.EHOSTUNREACH || errno == NativeAbi.ENETUNREACH) {
            return new NoRouteToHostException(message);
        }
        if (errno == NativeAbi.EADDRINUSE || errno == NativeAbi.EADDRNOTAVAIL) {
            return new BindException(message);
        }
        if (errno == NativeAbi.EBADF) {
            return new ChannelClosedException(message + ": the file descriptor is closed", null);
        }
        return new NativeIoException(message, errno);
    }
}
