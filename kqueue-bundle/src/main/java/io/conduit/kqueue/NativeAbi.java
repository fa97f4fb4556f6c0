package io.conduit.kqueue;

import io.conduit.transport.spi.unix.IovArray;
import io.conduit.transport.spi.unix.NativeConstants;
import io.conduit.transport.spi.unix.SockaddrCodec;
import io.conduit.transport.spi.unix.SocketCalls;
import io.conduit.transport.spi.unix.UnixErrors;
import io.conduit.transport.spi.unix.UnixSockets;

import java.lang.invoke.MethodHandles;
import java.util.Map;

/**
 * ABI facts of the loaded kqueue library (none hard-coded in Java): the layout of {@code struct kevent}, flag, filter,
 * errno and socket-option numbers, read once from {@link Native#constantNames()} / {@link Native#constantValues()}
 * when this class initialises. Nothing is hard-coded: {@code struct kevent} is 32 bytes on macOS and FreeBSD 11,
 * 64 bytes on FreeBSD 12+ and in the Linux test emulation, and the numbers differ between the systems.
 *
 * <p>Separate from {@link Native} so that {@code JNI_OnLoad}'s {@code FindClass} (which initialises
 * {@link Native}) runs no Java code. Initialise this class only after the library loaded
 * ({@link KQueue#ensureAvailability()}).
 *
 * <p>Immutable after initialisation; thread-safe.
 */
final class NativeAbi {

    private NativeAbi() {
    }

    private static final NativeConstants CONSTANTS = NativeConstants.of(Native.constantNames(),
            Native.constantValues(), "io.conduit.kqueue");


    /**
     * @return the value of the named native constant
     * @throws IllegalStateException when the library does not publish it (library and bundle do not match)
     */
    static int constant(String name) {
        return CONSTANTS.get(name);
    }

    /** @return a copy of every constant the library publishes, for diagnostics */
    static Map<String, Integer> constants() {
        return CONSTANTS.asMap();
    }

    /** 1 when the library is the Linux test build over the kqueue emulation, 0 on macOS/FreeBSD */
    static final boolean EMULATION = constant("EMULATION") != 0;

    /**
     * <pre>
     * struct kevent {                         // macOS, FreeBSD 11: 32 bytes on LP64
     *     uintptr_t ident; short filter; u_short flags; u_int fflags; intptr_t data; void *udata;
     * };
     * struct kevent {                         // FreeBSD 12+ (and the Linux test emulation): 64 bytes on LP64
     *     __uintptr_t ident; short filter; unsigned short flags; unsigned int fflags;
     *     __int64_t data; void *udata; __uint64_t ext[4];
     * };
     * </pre>
     */
    static final int KEVENT_SIZE = constant("KEVENT_SIZE");
    static final int KEVENT_IDENT_OFFSET = constant("KEVENT_IDENT_OFFSET");
    static final int KEVENT_IDENT_SIZE = constant("KEVENT_IDENT_SIZE");
    static final int KEVENT_FILTER_OFFSET = constant("KEVENT_FILTER_OFFSET");
    static final int KEVENT_FILTER_SIZE = constant("KEVENT_FILTER_SIZE");
    static final int KEVENT_FLAGS_OFFSET = constant("KEVENT_FLAGS_OFFSET");
    static final int KEVENT_FLAGS_SIZE = constant("KEVENT_FLAGS_SIZE");
    static final int KEVENT_FFLAGS_OFFSET = constant("KEVENT_FFLAGS_OFFSET");
    static final int KEVENT_DATA_OFFSET = constant("KEVENT_DATA_OFFSET");
    static final int KEVENT_DATA_SIZE = constant("KEVENT_DATA_SIZE");
    static final int KEVENT_UDATA_OFFSET = constant("KEVENT_UDATA_OFFSET");

    // kqueue(2) filters and flags
    static final int EVFILT_READ = constant("EVFILT_READ");
    static final int EVFILT_WRITE = constant("EVFILT_WRITE");
    static final int EVFILT_TIMER = constant("EVFILT_TIMER");
    static final int EVFILT_USER = constant("EVFILT_USER");
    static final int EV_ADD = constant("EV_ADD");
    static final int EV_DELETE = constant("EV_DELETE");
    static final int EV_ENABLE = constant("EV_ENABLE");
    static final int EV_DISABLE = constant("EV_DISABLE");
    static final int EV_CLEAR = constant("EV_CLEAR");
    static final int EV_ERROR = constant("EV_ERROR");
    static final int EV_EOF = constant("EV_EOF");
    static final int NOTE_TRIGGER = constant("NOTE_TRIGGER");
    static final int NOTE_FFNOP = constant("NOTE_FFNOP");
    static final int NOTE_NSECONDS = constant("NOTE_NSECONDS");

    // errno(3)
    static final int EAGAIN = constant("EAGAIN");
    static final int EINTR = constant("EINTR");
    static final int EINPROGRESS = constant("EINPROGRESS");
    static final int EISCONN = constant("EISCONN");
    static final int ENOTCONN = constant("ENOTCONN");
    static final int ECONNABORTED = constant("ECONNABORTED");
    static final int EMFILE = constant("EMFILE");
    static final int EBADF = constant("EBADF");
    static final int EADDRINUSE = constant("EADDRINUSE");
    static final int EADDRNOTAVAIL = constant("EADDRNOTAVAIL");
    static final int ENOENT = constant("ENOENT");
    static final int ENOBUFS = constant("ENOBUFS");
    static final int ENOPROTOOPT = constant("ENOPROTOOPT");
    static final int EAFNOSUPPORT = constant("EAFNOSUPPORT");

    /** {@code recvmsg(2)} {@code msg_flags}: the datagram was longer than the buffer and was cut */
    static final int MSG_TRUNC = constant("MSG_TRUNC");

    // struct iovec { void *iov_base; size_t iov_len; }
    static final int IOV_MAX = constant("IOV_MAX");
    static final int IOVEC_SIZE = constant("IOVEC_SIZE");
    static final int IOVEC_BASE_OFFSET = constant("IOVEC_BASE_OFFSET");
    static final int IOVEC_LEN_OFFSET = constant("IOVEC_LEN_OFFSET");
    static final int SIZEOF_POINTER = constant("SIZEOF_POINTER");
    static final int SIZEOF_SIZE_T = constant("SIZEOF_SIZE_T");

    /** Socket address sizes used outside {@link #SOCKADDR} (which encodes and decodes them). */
    static final int ADDRESS_OUT_SIZE = constant("ADDRESS_OUT_SIZE");

    // socket(2), shutdown(2)
    static final int AF_UNSPEC = constant("AF_UNSPEC");
    static final int AF_INET = constant("AF_INET");
    static final int AF_INET6 = constant("AF_INET6");
    static final int AF_UNIX = constant("AF_UNIX");
    static final int SOCK_STREAM = constant("SOCK_STREAM");
    static final int SOCK_DGRAM = constant("SOCK_DGRAM");
    static final int IPPROTO_IP = constant("IPPROTO_IP");
    static final int IPPROTO_IPV6 = constant("IPPROTO_IPV6");
    static final int IPPROTO_TCP = constant("IPPROTO_TCP");
    static final int SHUT_RD = constant("SHUT_RD");
    static final int SHUT_WR = constant("SHUT_WR");

    // socket options; -1 = the system has no such option
    static final int SOL_SOCKET = constant("SOL_SOCKET");
    static final int SO_REUSEADDR = constant("SO_REUSEADDR");
    static final int SO_REUSEPORT = constant("SO_REUSEPORT");
    static final int SO_KEEPALIVE = constant("SO_KEEPALIVE");
    static final int SO_SNDBUF = constant("SO_SNDBUF");
    static final int SO_RCVBUF = constant("SO_RCVBUF");
    static final int SO_BROADCAST = constant("SO_BROADCAST");
    static final int SO_LINGER = constant("SO_LINGER");
    static final int SO_SNDLOWAT = constant("SO_SNDLOWAT");
    static final int SO_ACCEPTFILTER = constant("SO_ACCEPTFILTER");
    static final boolean HAS_SO_ACCEPTFILTER = constant("HAS_SO_ACCEPTFILTER") != 0;
    static final int TCP_NOPUSH = constant("TCP_NOPUSH");
    static final boolean HAS_TCP_NOPUSH = constant("HAS_TCP_NOPUSH") != 0;
    static final int TCP_NODELAY = constant("TCP_NODELAY");
    static final int IP_TOS = constant("IP_TOS");
    static final int IP_MULTICAST_TTL = constant("IP_MULTICAST_TTL");
    static final int IP_MULTICAST_LOOP = constant("IP_MULTICAST_LOOP");
    static final int IPV6_V6ONLY = constant("IPV6_V6ONLY");
    static final int IPV6_TCLASS = constant("IPV6_TCLASS");
    static final int IPV6_MULTICAST_HOPS = constant("IPV6_MULTICAST_HOPS");
    static final int IPV6_MULTICAST_LOOP = constant("IPV6_MULTICAST_LOOP");

    /**
     * {@code SO_SNDLOWAT} can be set on macOS and FreeBSD; Linux defines the number but refuses to change it
     * ({@code socket(7)}: "not changeable on Linux"), so the emulation build reports it unsupported.
     */
    static final boolean SO_SNDLOWAT_SETTABLE = !EMULATION && SO_SNDLOWAT >= 0;

    /** The {@code struct iovec} layout for {@link io.conduit.transport.spi.unix.IovArray}, from the library. */
    static final IovArray.Layout IOVEC = IovArray.Layout.of(CONSTANTS, Native::addressOf);

    // Last: the option table reads the flags above.

    /**
     * The socket logic shared with the other Unix transports (open, listen, addresses, the options of
     * {@link KQueueSocket#optionTable}), over this library's natives; no abstract Unix names (they are Linux-only).
     */
    static final UnixSockets SOCKETS = new UnixSockets(CONSTANTS, Native::strerror, false,
            SocketCalls.of(MethodHandles.lookup(), Native.class), KQueueSocket.optionTable(CONSTANTS));

    /** The {@code -errno} convention: values and typed exceptions, with the library's {@code strerror(3)}. */
    static final UnixErrors ERRORS = SOCKETS.errors();

    /** Raw socket addresses with the library's layouts (no abstract Unix names: they are Linux-only). */
    static final SockaddrCodec SOCKADDR = SOCKETS.sockaddr();
}
