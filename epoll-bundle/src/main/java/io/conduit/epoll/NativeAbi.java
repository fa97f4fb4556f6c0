package io.conduit.epoll;

import io.conduit.transport.spi.unix.IovArray;
import io.conduit.transport.spi.unix.LinuxDatagrams;
import io.conduit.transport.spi.unix.LinuxMulticast;
import io.conduit.transport.spi.unix.MsghdrArray;
import io.conduit.transport.spi.unix.NativeConstants;
import io.conduit.transport.spi.unix.SockaddrCodec;
import io.conduit.transport.spi.unix.SocketCalls;
import io.conduit.transport.spi.unix.UnixErrors;
import io.conduit.transport.spi.unix.UnixSockets;

import java.lang.invoke.MethodHandles;
import java.util.Map;

/**
 * ABI facts of the loaded library (none hard-coded in Java): struct sizes and offsets, flags, errno values and socket
 * option numbers, read once from {@link Native#constantNames()} / {@link Native#constantValues()} when this
 * class initialises — nothing is hard-coded, because they differ between architectures (e.g.
 * {@code struct epoll_event} is 12 bytes on x86_64, 16 on aarch64) and operating systems.
 *
 * <p>This is a separate class from {@link Native} on purpose: {@code JNI_OnLoad} looks up {@link Native} with
 * {@code FindClass}, which <em>initialises</em> it, so {@link Native} has no static initialiser at all and
 * {@code JNI_OnLoad} never runs Java code. Initialise this class only after the library is loaded
 * ({@link Epoll#ensureAvailability()}); otherwise its initialisation fails with the
 * {@code UnsatisfiedLinkError} of the first native call.
 *
 * <p>Immutable after initialisation; thread-safe.
 */
final class NativeAbi {

    private NativeAbi() {
    }

    private static final NativeConstants CONSTANTS = NativeConstants.of(Native.constantNames(),
            Native.constantValues(), "io.conduit.epoll");

    /**
     * The socket logic shared with the other Unix transports (bind, listen, shutdown, addresses, the options of
     * {@link EpollSocket#optionTable}), over this library's natives; Linux abstract Unix names included.
     */
    static final UnixSockets SOCKETS = new UnixSockets(CONSTANTS, Native::strerror, true,
            SocketCalls.of(MethodHandles.lookup(), Native.class), EpollSocket.optionTable(CONSTANTS));

    /** The {@code -errno} convention: values and typed exceptions, with the library's {@code strerror(3)}. */
    static final UnixErrors ERRORS = SOCKETS.errors();

    /** Multicast membership and {@code IP_MULTICAST_IF} of UDP sockets ({@code ip(7)}, {@code ipv6(7)}). */
    static final LinuxMulticast MULTICAST = new LinuxMulticast(CONSTANTS, ERRORS,
            SocketCalls.of(MethodHandles.lookup(), Native.class), Native::setsockoptBytes);

    /** Raw socket addresses with the library's layouts, Linux abstract Unix names included. */
    static final SockaddrCodec SOCKADDR = SOCKETS.sockaddr();

    /** The datagram-socket logic shared with io_uring (address rules, connect, failed sends, multicast). */
    static final LinuxDatagrams DATAGRAMS = new LinuxDatagrams(CONSTANTS, SOCKETS,
            SocketCalls.of(MethodHandles.lookup(), Native.class), MULTICAST, Native::connect);

    /** The {@code struct mmsghdr} layout of {@code recvmmsg(2)}/{@code sendmmsg(2)} batches, from the library. */
    static final MsghdrArray.Layout MMSGHDR = MsghdrArray.Layout.mmsghdr(CONSTANTS, Native::addressOf);

    /** @return a batch of {@code capacity} {@code struct mmsghdr} for {@code recvmmsg(2)}/{@code sendmmsg(2)} */
    static MsghdrArray mmsghdrArray(int capacity) {
        return new MsghdrArray(capacity, MMSGHDR, SOCKADDR);
    }

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

    // epoll(7)
    static final int EPOLLIN = constant("EPOLLIN");
    static final int EPOLLOUT = constant("EPOLLOUT");
    static final int EPOLLRDHUP = constant("EPOLLRDHUP");
    static final int EPOLLET = constant("EPOLLET");
    static final int EPOLLERR = constant("EPOLLERR");
    static final int EPOLLHUP = constant("EPOLLHUP");
    static final int EPOLL_CTL_ADD = constant("EPOLL_CTL_ADD");
    static final int EPOLL_CTL_MOD = constant("EPOLL_CTL_MOD");
    static final int EPOLL_CTL_DEL = constant("EPOLL_CTL_DEL");
    /**
     * <pre>
     * typedef union epoll_data { void *ptr; int fd; uint32_t u32; uint64_t u64; } epoll_data_t;
     * struct epoll_event { uint32_t events; epoll_data_t data; } __EPOLL_PACKED;
     * </pre>
     * Packed on x86_64 (12 bytes, data at offset 4), naturally aligned on aarch64 (16 bytes, data at 8).
     */
    static final int EPOLL_EVENT_SIZE = constant("EPOLL_EVENT_SIZE");
    static final int EPOLL_EVENT_EVENTS_OFFSET = constant("EPOLL_EVENT_EVENTS_OFFSET");
    static final int EPOLL_EVENT_DATA_OFFSET = constant("EPOLL_EVENT_DATA_OFFSET");

    // eventfd(2), timerfd_create(2), clock_gettime(2)
    static final int EFD_CLOEXEC = constant("EFD_CLOEXEC");
    static final int EFD_NONBLOCK = constant("EFD_NONBLOCK");
    static final int TFD_CLOEXEC = constant("TFD_CLOEXEC");
    static final int TFD_NONBLOCK = constant("TFD_NONBLOCK");
    static final int CLOCK_MONOTONIC = constant("CLOCK_MONOTONIC");

    // errno(3)
    static final int EAGAIN = constant("EAGAIN");
    static final int EINTR = constant("EINTR");
    static final int EINPROGRESS = constant("EINPROGRESS");
    static final int ENOTCONN = constant("ENOTCONN");
    static final int ECONNREFUSED = constant("ECONNREFUSED");
    static final int ECONNRESET = constant("ECONNRESET");
    static final int ECONNABORTED = constant("ECONNABORTED");
    static final int EPIPE = constant("EPIPE");
    static final int EMFILE = constant("EMFILE");
    static final int ENFILE = constant("ENFILE");
    static final int ENOBUFS = constant("ENOBUFS");
    static final int EBADF = constant("EBADF");
    static final int EINVAL = constant("EINVAL");
    static final int EADDRINUSE = constant("EADDRINUSE");
    static final int EADDRNOTAVAIL = constant("EADDRNOTAVAIL");
    static final int EAFNOSUPPORT = constant("EAFNOSUPPORT");
    static final int EEXIST = constant("EEXIST");
    static final int ENOSYS = constant("ENOSYS");
    static final int EMSGSIZE = constant("EMSGSIZE");

    /** {@code IOV_MAX}: the most iovecs one readv/writev/sendmsg accepts (1024 on Linux). */
    static final int IOV_MAX = constant("IOV_MAX");
    /** {@code struct iovec { void *iov_base; size_t iov_len; };} */
    static final int IOVEC_SIZE = constant("IOVEC_SIZE");
    static final int IOVEC_BASE_OFFSET = constant("IOVEC_BASE_OFFSET");
    static final int IOVEC_LEN_OFFSET = constant("IOVEC_LEN_OFFSET");

    /**
     * <pre>
     * struct msghdr {
     *     void         *msg_name;       socklen_t     msg_namelen;
     *     struct iovec *msg_iov;        size_t        msg_iovlen;
     *     void         *msg_control;    size_t        msg_controllen;
     *     int           msg_flags;
     * };
     * struct mmsghdr { struct msghdr msg_hdr; unsigned int msg_len; };
     * struct cmsghdr { size_t cmsg_len; int cmsg_level; int cmsg_type; unsigned char cmsg_data[]; };
     * </pre>
     */
    static final int MSGHDR_SIZE = constant("MSGHDR_SIZE");
    static final int MSGHDR_NAME_OFFSET = constant("MSGHDR_NAME_OFFSET");
    static final int MSGHDR_NAMELEN_OFFSET = constant("MSGHDR_NAMELEN_OFFSET");
    static final int MSGHDR_IOV_OFFSET = constant("MSGHDR_IOV_OFFSET");
    static final int MSGHDR_IOVLEN_OFFSET = constant("MSGHDR_IOVLEN_OFFSET");
    static final int MSGHDR_CONTROL_OFFSET = constant("MSGHDR_CONTROL_OFFSET");
    static final int MSGHDR_CONTROLLEN_OFFSET = constant("MSGHDR_CONTROLLEN_OFFSET");
    static final int MSGHDR_FLAGS_OFFSET = constant("MSGHDR_FLAGS_OFFSET");
    static final int MMSGHDR_SIZE = constant("MMSGHDR_SIZE");
    static final int MMSGHDR_HDR_OFFSET = constant("MMSGHDR_HDR_OFFSET");
    static final int MMSGHDR_LEN_OFFSET = constant("MMSGHDR_LEN_OFFSET");
    static final int CMSGHDR_LEN_OFFSET = constant("CMSGHDR_LEN_OFFSET");
    static final int CMSGHDR_LEVEL_OFFSET = constant("CMSGHDR_LEVEL_OFFSET");
    static final int CMSGHDR_TYPE_OFFSET = constant("CMSGHDR_TYPE_OFFSET");
    /** {@code CMSG_LEN(0)}: offset of {@code cmsg_data} from the start of a {@code cmsghdr}. */
    static final int CMSG_DATA_OFFSET = constant("CMSG_DATA_OFFSET");
    /** {@code CMSG_ALIGN(1)}: control messages start at multiples of this. */
    static final int CMSG_ALIGNMENT = constant("CMSG_ALIGNMENT");
    static final int SIZEOF_POINTER = constant("SIZEOF_POINTER");
    static final int SIZEOF_SIZE_T = constant("SIZEOF_SIZE_T");

    /** Socket address sizes used outside {@link #SOCKADDR} (which encodes and decodes them). */
    static final int SOCKADDR_STORAGE_SIZE = constant("SOCKADDR_STORAGE_SIZE");
    static final int ADDRESS_OUT_SIZE = constant("ADDRESS_OUT_SIZE");
    static final int SOCKADDR_IN_SIZE = constant("SOCKADDR_IN_SIZE");
    static final int SOCKADDR_IN6_SIZE = constant("SOCKADDR_IN6_SIZE");

    // socket(2), shutdown(2), send(2), splice(2), open(2)
    static final int AF_UNSPEC = constant("AF_UNSPEC");
    static final int AF_INET = constant("AF_INET");
    static final int AF_INET6 = constant("AF_INET6");
    static final int AF_UNIX = constant("AF_UNIX");
    static final int SOCK_STREAM = constant("SOCK_STREAM");
    static final int SOCK_DGRAM = constant("SOCK_DGRAM");
    static final int SOCK_NONBLOCK = constant("SOCK_NONBLOCK");
    static final int SOCK_CLOEXEC = constant("SOCK_CLOEXEC");
    static final int IPPROTO_IP = constant("IPPROTO_IP");
    static final int IPPROTO_IPV6 = constant("IPPROTO_IPV6");
    static final int IPPROTO_TCP = constant("IPPROTO_TCP");
    static final int SHUT_RD = constant("SHUT_RD");
    static final int SHUT_WR = constant("SHUT_WR");
    static final int SHUT_RDWR = constant("SHUT_RDWR");
    static final int MSG_TRUNC = constant("MSG_TRUNC");
    static final int MSG_CTRUNC = constant("MSG_CTRUNC");
    static final int SPLICE_F_MOVE = constant("SPLICE_F_MOVE");
    static final int SPLICE_F_NONBLOCK = constant("SPLICE_F_NONBLOCK");
    static final int O_NONBLOCK = constant("O_NONBLOCK");
    static final int O_CLOEXEC = constant("O_CLOEXEC");
    static final int O_RDONLY = constant("O_RDONLY");

    // socket options: socket(7), tcp(7), ip(7), ipv6(7), unix(7)
    static final int SOL_SOCKET = constant("SOL_SOCKET");
    static final int SO_REUSEADDR = constant("SO_REUSEADDR");
    static final int SO_REUSEPORT = constant("SO_REUSEPORT");
    static final int SO_KEEPALIVE = constant("SO_KEEPALIVE");
    static final int SO_SNDBUF = constant("SO_SNDBUF");
    static final int SO_RCVBUF = constant("SO_RCVBUF");
    static final int SO_BROADCAST = constant("SO_BROADCAST");
    static final int SO_LINGER = constant("SO_LINGER");
    static final int SO_ERROR = constant("SO_ERROR");
    static final int SO_BUSY_POLL = constant("SO_BUSY_POLL");
    static final int SO_PEERCRED = constant("SO_PEERCRED");
    static final int TCP_NODELAY = constant("TCP_NODELAY");
    static final int TCP_CORK = constant("TCP_CORK");
    static final int TCP_QUICKACK = constant("TCP_QUICKACK");
    static final int TCP_USER_TIMEOUT = constant("TCP_USER_TIMEOUT");
    static final int TCP_NOTSENT_LOWAT = constant("TCP_NOTSENT_LOWAT");
    static final int TCP_KEEPIDLE = constant("TCP_KEEPIDLE");
    static final int TCP_KEEPINTVL = constant("TCP_KEEPINTVL");
    static final int TCP_KEEPCNT = constant("TCP_KEEPCNT");
    static final int TCP_FASTOPEN = constant("TCP_FASTOPEN");
    static final int TCP_FASTOPEN_CONNECT = constant("TCP_FASTOPEN_CONNECT");
    static final int IP_TOS = constant("IP_TOS");
    static final int IP_MULTICAST_TTL = constant("IP_MULTICAST_TTL");
    static final int IP_MULTICAST_LOOP = constant("IP_MULTICAST_LOOP");
    static final int IP_FREEBIND = constant("IP_FREEBIND");
    static final int IP_TRANSPARENT = constant("IP_TRANSPARENT");
    static final int IP_RECVORIGDSTADDR = constant("IP_RECVORIGDSTADDR");
    static final int IP_ORIGDSTADDR = constant("IP_ORIGDSTADDR");
    static final int IPV6_V6ONLY = constant("IPV6_V6ONLY");
    static final int IPV6_TCLASS = constant("IPV6_TCLASS");
    static final int IPV6_RECVORIGDSTADDR = constant("IPV6_RECVORIGDSTADDR");
    static final int IPV6_ORIGDSTADDR = constant("IPV6_ORIGDSTADDR");

    /** The {@code struct iovec} layout for {@link io.conduit.transport.spi.unix.IovArray}, from the library. */
    static final IovArray.Layout IOVEC = IovArray.Layout.of(CONSTANTS, Native::addressOf);
}
