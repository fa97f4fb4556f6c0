package io.conduit.transport.spi.unix;

import io.conduit.channel.AddressBindException;
import io.conduit.channel.ChannelClosedException;
import io.conduit.transport.spi.DatagramLimits;

import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.PortUnreachableException;
import java.net.SocketAddress;
import java.util.Objects;
import java.util.function.IntFunction;

/**
 * SPI for transport implementers: the one mapping from native results ({@code -errno}, one convention) to
 * values and typed exceptions, for every transport whose natives follow that convention. The errno numbers come
 * from the transport's own library ({@link NativeConstants}) and the text from its {@code strerror(3)}, so
 * messages read like {@code connect(..) failed: Connection refused (errno 111)}.
 *
 * <p>Expected outcomes are values: callers test {@link #isAgain}, {@link #isInterrupted} or
 * {@link #isInProgress} before asking for an exception. Immutable; thread-safe.
 */
public final class UnixErrors {

    private final IntFunction<String> strerror;
    private final int eagain;
    private final int ewouldblock;
    private final int eintr;
    private final int einprogress;
    private final int econnrefused;
    private final int etimedout;
    private final int ehostunreach;
    private final int enetunreach;
    private final int eaddrinuse;
    private final int eaddrnotavail;
    private final int eacces;
    private final int ebadf;
    private final int emsgsize;
    private final int enoent;
    private final int enoprotoopt;

    /**
     * @param constants the library's constants (the errno values of {@code conduit_unix.c})
     * @param strerror  the library's {@code strerror(3)}: positive errno → text
     * @throws IllegalStateException when an errno constant is missing
     */
    public UnixErrors(NativeConstants constants, IntFunction<String> strerror) {
        this.strerror = Objects.requireNonNull(strerror, "strerror");
        eagain = constants.get("EAGAIN");
        ewouldblock = constants.get("EWOULDBLOCK");
        eintr = constants.get("EINTR");
        einprogress = constants.get("EINPROGRESS");
        econnrefused = constants.get("ECONNREFUSED");
        etimedout = constants.get("ETIMEDOUT");
        ehostunreach = constants.get("EHOSTUNREACH");
        enetunreach = constants.get("ENETUNREACH");
        eaddrinuse = constants.get("EADDRINUSE");
        eaddrnotavail = constants.get("EADDRNOTAVAIL");
        eacces = constants.get("EACCES");
        ebadf = constants.get("EBADF");
        emsgsize = constants.get("EMSGSIZE");
        enoent = constants.get("ENOENT");
        enoprotoopt = constants.get("ENOPROTOOPT");
    }

    /** @return {@code true} for {@code -EAGAIN}/{@code -EWOULDBLOCK}: try again when the fd is ready */
    public boolean isAgain(long result) {
        return result == -eagain || result == -ewouldblock;
    }

    /** @return {@code true} for {@code -EINTR}: a signal interrupted the call; retry */
    public boolean isInterrupted(long result) {
        return result == -eintr;
    }

    /** @return {@code true} for {@code -ENOENT}: e.g. no such file, or no program to detach */
    public boolean isNoEntry(long result) {
        return result == -enoent;
    }

    /** @return {@code true} for {@code -ENOPROTOOPT}: the system does not know the socket option */
    public boolean isNoProtocolOption(long result) {
        return result == -enoprotoopt;
    }

    /** @return {@code true} for {@code -EINPROGRESS}: a non-blocking connect has started */
    public boolean isInProgress(long result) {
        return result == -einprogress;
    }

    /**
     * @param call  the system call's name, e.g. {@code "write"}
     * @param errno the positive errno value
     * @return {@code <call>(..) failed: <strerror> (errno <n>)}
     */
    public String message(String call, int errno) {
        return call + "(..) failed: " + strerror.apply(errno) + " (errno " + errno + ")";
    }

    /**
     * @return {@code result} when it is &gt;= 0
     * @throws IOException typed by {@link #newIoException} otherwise
     */
    public int check(String call, int result) throws IOException {
        if (result < 0) {
            throw newIoException(call, result);
        }
        return result;
    }

    /** {@link #check(String, int)} for {@code long} results (readv, writev, sendfile, splice, read counters). */
    public long check(String call, long result) throws IOException {
        if (result < 0) {
            throw newIoException(call, (int) result);
        }
        return result;
    }

    /**
     * @return {@code result} when it is &gt;= 0
     * @throws IOException typed by {@link #newConnectException} otherwise
     */
    public int checkConnect(String call, int result) throws IOException {
        if (result < 0) {
            throw newConnectException(call, result);
        }
        return result;
    }

    /**
     * Exception for a failed connect ({@code connect}, {@code finishConnect}): {@code ECONNREFUSED},
     * {@code ETIMEDOUT} → {@link ConnectException}; others as {@link #newIoException}.
     *
     * @param result the native result, {@code -errno}
     */
    public IOException newConnectException(String call, int result) {
        int errno = -result;
        if (errno == econnrefused || errno == etimedout) {
            return new ConnectException(message(call, errno));
        }
        return newIoException(call, result);
    }

    /** @return {@code true} for {@code -EMSGSIZE}: a datagram longer than the socket may send */
    public boolean isMessageTooLong(long result) {
        return result == -emsgsize;
    }

    /**
     * Exception for a Unix-domain datagram the kernel refused as too long ({@code EMSGSIZE}, {@code unix(7)}):
     * {@code <call>(..) failed: Message too long (errno <n>): a datagram of <length> bytes is longer than this
     * Unix-domain datagram socket may send (SO_SNDBUF is <n> bytes) ...}, so the user learns the size and the knob.
     *
     * @param length          the datagram's length, bytes
     * @param sendBufferBytes the socket's {@code SO_SNDBUF} in bytes, or a negative value when it is unknown
     * @param systemNote      what the system adds (e.g. macOS's small default), or {@code null}
     * @return a {@link NativeIoException} carrying {@code EMSGSIZE}
     * @since 0.3.0
     */
    public NativeIoException newDatagramTooLongException(String call, int length, int sendBufferBytes,
            String systemNote) {
        return new NativeIoException(message(call, emsgsize) + ": a datagram of " + length + " bytes is longer than"
                + " this Unix-domain datagram socket may send ("
                + (sendBufferBytes >= 0 ? "SO_SNDBUF is " + sendBufferBytes + " bytes" : "the limit follows SO_SNDBUF")
                + (systemNote == null ? "" : "; " + systemNote) + "): send shorter datagrams, or raise SO_SNDBUF",
                emsgsize);
    }

    /**
     * Exception for a UDP datagram the kernel refused as too long ({@code EMSGSIZE}):
     * {@code <call>(..) failed: Message too long (errno <n>): a UDP datagram of <length> bytes is longer than UDP
     * over IPv4 carries (at most 65507 bytes) ...}, worded by {@link DatagramLimits#udpTooLong}.
     *
     * @param length    the datagram's payload length, bytes
     * @param recipient where it was going (the connected peer for a connected socket), or {@code null}
     * @return a {@link NativeIoException} carrying {@code EMSGSIZE}
     * @since 0.4.0
     */
    public NativeIoException newUdpDatagramTooLongException(String call, int length, SocketAddress recipient) {
        return new NativeIoException(message(call, emsgsize) + ": " + DatagramLimits.udpTooLong(length, recipient),
                emsgsize);
    }

    /**
     * Exception for any other failed call: {@code ECONNREFUSED} (only reported on datagram sockets outside
     * connect) → {@link PortUnreachableException}; {@code EHOSTUNREACH}/{@code ENETUNREACH} →
     * {@link NoRouteToHostException}; {@code EADDRINUSE}/{@code EADDRNOTAVAIL}, and {@code EACCES} of {@code bind} →
     * {@link AddressBindException} with the matching {@link AddressBindException.Reason};
     * {@code EBADF} → {@link ChannelClosedException}; every other errno → {@link NativeIoException} carrying it.
     *
     * @param result the native result, {@code -errno}
     */
    public IOException newIoException(String call, int result) {
        int errno = -result;
        String message = message(call, errno);
        if (errno == econnrefused) {
            return new PortUnreachableException(message);
        }
        if (errno == ehostunreach || errno == enetunreach) {
            return new NoRouteToHostException(message);
        }
        if (errno == eaddrinuse) {
            return new AddressBindException(message, AddressBindException.Reason.IN_USE, null, null);
        }
        if (errno == eaddrnotavail) {
            return new AddressBindException(message, AddressBindException.Reason.NOT_AVAILABLE, null, null);
        }
        if (errno == eacces && "bind".equals(call)) {
            return new AddressBindException(message, AddressBindException.Reason.ACCESS_DENIED, null, null);
        }
        if (errno == ebadf) {
            return new ChannelClosedException(message + ": the file descriptor is closed", null);
        }
        return new NativeIoException(message, errno);
    }
}
