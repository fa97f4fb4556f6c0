package io.conduit.epoll;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;

/**
 * The one static facade of every native entry point of the epoll transport (STYLE.md item 2): JNI today, so
 * a change of binding technology (FFM) touches this file only. The C side
 * ({@code native-fragments/src/main/c/epoll/conduit_epoll.c}) registers these methods from {@code JNI_OnLoad}
 * with {@code RegisterNatives}; each is about one system call and carries no policy.
 *
 * <p><b>Results.</b> Every native returns {@code -errno} on failure (see {@link Errors}); expected outcomes
 * ({@link #EAGAIN}, {@link #EINTR}, {@link #EINPROGRESS}) come back as such values, never as exceptions.
 *
 * <p><b>Memory.</b> No {@code sun.misc.Unsafe}: native memory is a direct {@link ByteBuffer} (see
 * {@link NativeMemory}) whose address is obtained <em>once</em> with {@link #addressOf(ByteBuffer)}
 * ({@code GetDirectBufferAddress}); natives take {@code long} addresses into it, and Java reads and writes
 * the structs through the same buffer's absolute accessors in native byte order. The owner must keep the
 * buffer reachable while the kernel uses the address.
 *
 * <p><b>Socket addresses</b> cross as raw {@code struct sockaddr} bytes in {@code byte[]}s, laid out and
 * parsed by {@link Sockaddr} with the offsets below. An "address out" array ({@link #ADDRESS_OUT_SIZE} bytes)
 * receives the {@code socklen_t} length as a native-order int, then the sockaddr bytes.
 *
 * <p><b>ABI facts</b> (struct sizes, offsets, flags, errno and option numbers) are read from the library when
 * this class initialises ({@link #constantNames()} / {@link #constantValues()}): nothing is hard-coded.
 * Initialise this class only after the library is loaded ({@link Epoll#ensureAvailability()}).
 *
 * <p>Threading: all methods are static and thread-safe as the underlying system calls are.
 */
final class Native {

    private Native() {
    }

    // ------------------------------------------------------------------ memory and diagnostics

    /** @return the address of a direct buffer's first byte (its position 0), or 0 for a heap buffer */
    static native long addressOf(ByteBuffer buffer);

    /** @return {@code strerror(errno)}, e.g. {@code "Connection refused"} */
    static native String strerror(int errno);

    /** @return the names of the library's constants, index-aligned with {@link #constantValues()} */
    static native String[] constantNames();

    /** @return the values of the library's constants */
    static native int[] constantValues();

    // ------------------------------------------------------------------ epoll(7)

    /** {@code epoll_create1(EPOLL_CLOEXEC)}: @return the epoll fd or -errno */
    static native int epollCreate();

    /**
     * {@code epoll_ctl(2)}.
     *
     * @param op     {@link #EPOLL_CTL_ADD}, {@link #EPOLL_CTL_MOD} or {@link #EPOLL_CTL_DEL}
     * @param events {@code EPOLLIN | EPOLLOUT | ...}
     * @param data   stored in {@code epoll_event.data.u64} and reported back by {@link #epollWait}
     * @return 0 or -errno
     */
    static native int epollCtl(int epfd, int op, int fd, int events, long data);

    /**
     * {@code epoll_wait(2)} into an array of {@code struct epoll_event} (see {@link EpollEventArray}).
     *
     * @param timeoutMillis -1 blocks, 0 polls
     * @return the number of ready events, or -errno ({@code -EINTR} is an expected value)
     */
    static native int epollWait(int epfd, long eventsAddress, int maxEvents, int timeoutMillis);

    // ------------------------------------------------------------------ eventfd(2), timerfd_create(2)

    /** {@code eventfd(2)}; flags {@link #EFD_CLOEXEC} | {@link #EFD_NONBLOCK}. @return fd or -errno */
    static native int eventfd(int initialValue, int flags);

    /** {@code write(2)} of the 8-byte counter increment. @return 0 or -errno ({@code -EAGAIN} on overflow) */
    static native int eventfdWrite(int fd, long value);

    /** {@code read(2)} of the 8-byte counter (reset to 0). @return the counter (&lt; 2^63) or -errno */
    static native long eventfdRead(int fd);

    /** {@code timerfd_create(2)}; clock {@link #CLOCK_MONOTONIC}, flags {@link #TFD_CLOEXEC} | {@link #TFD_NONBLOCK}. */
    static native int timerfdCreate(int clockId, int flags);

    /**
     * Raw relative {@code timerfd_settime(2)}: the kernel rejects {@code nanos >= 1e9} or negative values with
     * EINVAL and an all-zero value disarms. Use {@link #timerfdSetTime} / {@link #timerfdSetTimeoutNanos},
     * which never pass an invalid value.
     *
     * @return 0 or -errno
     */
    static native int timerfdSettime(int fd, long seconds, long nanos, long intervalSeconds, long intervalNanos);

    /** {@code read(2)} of the 8-byte expiration count. @return the count or -errno ({@code -EAGAIN} if none) */
    static native long timerfdRead(int fd);

    // ------------------------------------------------------------------ descriptors and sockets

    /** {@code socket(2)}; callers OR {@link #SOCK_NONBLOCK} | {@link #SOCK_CLOEXEC} into {@code type}. */
    static native int socket(int domain, int type, int protocol);

    /** {@code socketpair(2)}: @param fds receives the two fds. @return 0 or -errno */
    static native int socketpair(int domain, int type, int protocol, int[] fds);

    /** {@code pipe2(2)}: @param fds receives {read end, write end}. @return 0 or -errno */
    static native int pipe2(int[] fds, int flags);

    /** {@code bind(2)} to {@code length} bytes of a sockaddr. @return 0 or -errno */
    static native int bind(int fd, byte[] sockaddr, int length);

    /** {@code listen(2)}. @return 0 or -errno */
    static native int listen(int fd, int backlog);

    /**
     * {@code accept4(2)}; flags {@link #SOCK_NONBLOCK} | {@link #SOCK_CLOEXEC}.
     *
     * @param addressOut {@link #ADDRESS_OUT_SIZE} bytes receiving the peer address, or {@code null}
     * @return the accepted fd or -errno ({@code -EAGAIN} when none is pending)
     */
    static native int accept4(int fd, byte[] addressOut, int flags);

    /** {@code connect(2)}. @return 0, {@code -EINPROGRESS} (non-blocking, expected) or -errno */
    static native int connect(int fd, byte[] sockaddr, int length);

    /** {@code getsockopt(SO_ERROR)} once a non-blocking connect is writable. @return 0 or -(pending error) */
    static native int finishConnect(int fd);

    /** {@code shutdown(2)}; how {@link #SHUT_RD}, {@link #SHUT_WR} or {@link #SHUT_RDWR}. */
    static native int shutdown(int fd, int how);

    /** {@code close(2)}. @return 0 or -errno */
    static native int close(int fd);

    /** {@code read(2)}. @return bytes read, 0 at EOF, or -errno */
    static native int read(int fd, long address, int length);

    /** {@code write(2)}. @return bytes written or -errno */
    static native int write(int fd, long address, int length);

    /** {@code readv(2)} over {@code iovCount} {@code struct iovec} (see {@link IovArray}). */
    static native long readv(int fd, long iovAddress, int iovCount);

    /** {@code writev(2)}: a gathering write over {@code iovCount} {@code struct iovec}. */
    static native long writev(int fd, long iovAddress, int iovCount);

    /** {@code sendto(2)} to {@code sockaddrLength} bytes of a sockaddr. @return bytes sent or -errno */
    static native int sendto(int fd, long address, int length, int flags, byte[] sockaddr, int sockaddrLength);

    /** {@code recvfrom(2)}; the sender goes to {@code addressOut}. @return bytes received or -errno */
    static native int recvfrom(int fd, long address, int length, int flags, byte[] addressOut);

    /** {@code sendmmsg(2)} over {@code vlen} {@code struct mmsghdr} (see {@link MmsghdrArray}). */
    static native int sendmmsg(int fd, long msgvecAddress, int vlen, int flags);

    /** {@code recvmmsg(2)} without timeout over {@code vlen} {@code struct mmsghdr}. */
    static native int recvmmsg(int fd, long msgvecAddress, int vlen, int flags);

    /** {@code recvmsg(2)} into one {@code struct msghdr} (ancillary data, e.g. {@link #IP_ORIGDSTADDR}). */
    static native int recvmsg(int fd, long msghdrAddress, int flags);

    /** {@code sendfile(2)} from {@code inFd} at {@code offset}. @return bytes sent or -errno */
    static native long sendfile(int outFd, int inFd, long offset, long count);

    /** {@code splice(2)}; an offset &lt; 0 means the fd's own position (NULL). @return bytes moved or -errno */
    static native long splice(int fdIn, long offIn, int fdOut, long offOut, long length, int flags);

    /** {@code getsockname(2)} into an address-out array. @return 0 or -errno */
    static native int getsockname(int fd, byte[] addressOut);

    /** {@code getpeername(2)} into an address-out array. @return 0 or -errno */
    static native int getpeername(int fd, byte[] addressOut);

    /** {@code setsockopt(2)} of an {@code int} option. @return 0 or -errno */
    static native int setsockoptInt(int fd, int level, int optname, int value);

    /** {@code getsockopt(2)} of an {@code int} option into {@code valueOut[0]}. @return 0 or -errno */
    static native int getsockoptInt(int fd, int level, int optname, int[] valueOut);

    /** {@code setsockopt(SO_LINGER)} with {@code struct linger { int l_onoff; int l_linger; }}. */
    static native int setsockoptLinger(int fd, int onoff, int seconds);

    /** {@code getsockopt(SO_LINGER)}: {@code out = {l_onoff, l_linger}}. @return 0 or -errno */
    static native int getsockoptLinger(int fd, int[] out);

    /** {@code getsockopt(SO_PEERCRED)}: {@code struct ucred { pid_t pid; uid_t uid; gid_t gid; }} into {@code out}. */
    static native int getPeerCredentials(int fd, int[] out);

    // ------------------------------------------------------------------ Java-side helpers around natives

    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    /**
     * Largest timer value in seconds passed to the kernel: {@code Integer.MAX_VALUE} (about 68 years) fits
     * every {@code time_t}; longer delays are clamped (the loop re-arms before it matters).
     */
    static final long MAX_TIMER_SECONDS = Integer.MAX_VALUE;

    /**
     * Arms {@code fd} to expire once after {@code seconds + nanos}, normalised so the kernel never sees an
     * invalid value: nanos of any sign carry into seconds ({@code 0 <= tv_nsec < 1e9}), a total in the past
     * becomes 1 ns (an all-zero value would disarm), and the total is clamped to {@link #MAX_TIMER_SECONDS}.
     *
     * @return 0 or -errno
     */
    static int timerfdSetTime(int fd, long seconds, long nanos) {
        long carry = Math.floorDiv(nanos, NANOS_PER_SECOND);
        long nsec = Math.floorMod(nanos, NANOS_PER_SECOND);
        long sec = seconds + carry;
        if (((seconds ^ sec) & (carry ^ sec)) < 0) { // overflow: saturate in the direction of the operands
            sec = carry > 0 ? Long.MAX_VALUE : Long.MIN_VALUE;
        }
        if (sec < 0) {
            sec = 0;
            nsec = 0;
        } else if (sec >= MAX_TIMER_SECONDS) {
            sec = MAX_TIMER_SECONDS;
            nsec = 0;
        }
        if (sec == 0 && nsec == 0) {
            nsec = 1;
        }
        return timerfdSettime(fd, sec, nsec, 0, 0);
    }

    /** {@link #timerfdSetTime(int, long, long)} for a delay in nanoseconds (any value, even negative). */
    static int timerfdSetTimeoutNanos(int fd, long delayNanos) {
        return timerfdSetTime(fd, 0, delayNanos);
    }

    /** Disarms {@code fd} (an all-zero {@code itimerspec}). @return 0 or -errno */
    static int timerfdDisarm(int fd) {
        return timerfdSettime(fd, 0, 0, 0, 0);
    }

    /** @return a new array for natives that report a socket address */
    static byte[] newAddressOut() {
        return new byte[ADDRESS_OUT_SIZE];
    }

    // ------------------------------------------------------------------ constants read from the library

    private static final Map<String, Integer> CONSTANTS = readConstants();

    private static Map<String, Integer> readConstants() {
        String[] names = constantNames();
        int[] values = constantValues();
        if (names.length != values.length) {
            throw new IllegalStateException("native constant tables differ in length: " + names.length
                    + " names, " + values.length + " values; the library does not match this bundle");
        }
        Map<String, Integer> map = new HashMap<>(names.length * 2);
        for (int i = 0; i < names.length; i++) {
            map.put(names[i], values[i]);
        }
        return map;
    }

    /**
     * @return the value of the named native constant
     * @throws IllegalStateException when the library does not publish it (library and bundle do not match)
     */
    static int constant(String name) {
        Integer value = CONSTANTS.get(name);
        if (value == null) {
            throw new IllegalStateException("the native library publishes no constant " + name
                    + ": the library and the io.conduit.epoll bundle come from different builds");
        }
        return value;
    }

    /** @return a copy of every constant the library publishes, for diagnostics */
    static Map<String, Integer> constants() {
        return Map.copyOf(CONSTANTS);
    }

    // epoll(7)
    static final int EPOLLIN = constant("EPOLLIN");
    static final int EPOLLOUT = constant("EPOLLOUT");
    static final int EPOLLRDHUP = constant("EPOLLRDHUP");
    static final int EPOLLET = constant("EPOLLET");
    static final int EPOLLERR = constant("EPOLLERR");
    static final int EPOLLHUP = constant("EPOLLHUP");
    static final int EPOLLPRI = constant("EPOLLPRI");
    static final int EPOLLONESHOT = constant("EPOLLONESHOT");
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
    static final int EWOULDBLOCK = constant("EWOULDBLOCK");
    static final int EINTR = constant("EINTR");
    static final int EINPROGRESS = constant("EINPROGRESS");
    static final int EALREADY = constant("EALREADY");
    static final int EISCONN = constant("EISCONN");
    static final int ENOTCONN = constant("ENOTCONN");
    static final int ECONNREFUSED = constant("ECONNREFUSED");
    static final int ECONNRESET = constant("ECONNRESET");
    static final int ECONNABORTED = constant("ECONNABORTED");
    static final int EPIPE = constant("EPIPE");
    static final int EMFILE = constant("EMFILE");
    static final int ENFILE = constant("ENFILE");
    static final int ENOBUFS = constant("ENOBUFS");
    static final int ENOMEM = constant("ENOMEM");
    static final int EBADF = constant("EBADF");
    static final int EINVAL = constant("EINVAL");
    static final int ETIMEDOUT = constant("ETIMEDOUT");
    static final int EHOSTUNREACH = constant("EHOSTUNREACH");
    static final int ENETUNREACH = constant("ENETUNREACH");
    static final int EADDRINUSE = constant("EADDRINUSE");
    static final int EADDRNOTAVAIL = constant("EADDRNOTAVAIL");
    static final int EACCES = constant("EACCES");
    static final int EPERM = constant("EPERM");
    static final int ENOENT = constant("ENOENT");
    static final int ENOTSOCK = constant("ENOTSOCK");
    static final int EOPNOTSUPP = constant("EOPNOTSUPP");
    static final int ENOPROTOOPT = constant("ENOPROTOOPT");
    static final int EMSGSIZE = constant("EMSGSIZE");
    static final int ESHUTDOWN = constant("ESHUTDOWN");
    static final int EAFNOSUPPORT = constant("EAFNOSUPPORT");
    static final int ENOSYS = constant("ENOSYS");

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
    static final int SIZEOF_SOCKLEN_T = constant("SIZEOF_SOCKLEN_T");

    /**
     * <pre>
     * struct sockaddr_in  { sa_family_t sin_family; in_port_t sin_port; struct in_addr sin_addr; ... };
     * struct sockaddr_in6 { sa_family_t sin6_family; in_port_t sin6_port; uint32_t sin6_flowinfo;
     *                       struct in6_addr sin6_addr; uint32_t sin6_scope_id; };
     * struct sockaddr_un  { sa_family_t sun_family; char sun_path[108]; };
     * </pre>
     * Ports and flow info are in network byte order, the family and scope id in host byte order.
     */
    static final int SA_FAMILY_SIZE = constant("SA_FAMILY_SIZE");
    static final int SOCKADDR_STORAGE_SIZE = constant("SOCKADDR_STORAGE_SIZE");
    static final int ADDRESS_OUT_SIZE = constant("ADDRESS_OUT_SIZE");
    static final int SOCKADDR_IN_SIZE = constant("SOCKADDR_IN_SIZE");
    static final int SOCKADDR_IN_FAMILY_OFFSET = constant("SOCKADDR_IN_FAMILY_OFFSET");
    static final int SOCKADDR_IN_PORT_OFFSET = constant("SOCKADDR_IN_PORT_OFFSET");
    static final int SOCKADDR_IN_ADDR_OFFSET = constant("SOCKADDR_IN_ADDR_OFFSET");
    static final int SOCKADDR_IN6_SIZE = constant("SOCKADDR_IN6_SIZE");
    static final int SOCKADDR_IN6_FAMILY_OFFSET = constant("SOCKADDR_IN6_FAMILY_OFFSET");
    static final int SOCKADDR_IN6_PORT_OFFSET = constant("SOCKADDR_IN6_PORT_OFFSET");
    static final int SOCKADDR_IN6_FLOWINFO_OFFSET = constant("SOCKADDR_IN6_FLOWINFO_OFFSET");
    static final int SOCKADDR_IN6_ADDR_OFFSET = constant("SOCKADDR_IN6_ADDR_OFFSET");
    static final int SOCKADDR_IN6_SCOPE_ID_OFFSET = constant("SOCKADDR_IN6_SCOPE_ID_OFFSET");
    static final int SOCKADDR_UN_SIZE = constant("SOCKADDR_UN_SIZE");
    static final int SOCKADDR_UN_FAMILY_OFFSET = constant("SOCKADDR_UN_FAMILY_OFFSET");
    static final int SOCKADDR_UN_PATH_OFFSET = constant("SOCKADDR_UN_PATH_OFFSET");

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
    static final int IPPROTO_UDP = constant("IPPROTO_UDP");
    static final int SHUT_RD = constant("SHUT_RD");
    static final int SHUT_WR = constant("SHUT_WR");
    static final int SHUT_RDWR = constant("SHUT_RDWR");
    static final int MSG_DONTWAIT = constant("MSG_DONTWAIT");
    static final int MSG_NOSIGNAL = constant("MSG_NOSIGNAL");
    static final int MSG_TRUNC = constant("MSG_TRUNC");
    static final int MSG_CTRUNC = constant("MSG_CTRUNC");
    static final int MSG_WAITFORONE = constant("MSG_WAITFORONE");
    static final int MSG_PEEK = constant("MSG_PEEK");
    static final int SPLICE_F_MOVE = constant("SPLICE_F_MOVE");
    static final int SPLICE_F_NONBLOCK = constant("SPLICE_F_NONBLOCK");
    static final int SPLICE_F_MORE = constant("SPLICE_F_MORE");
    static final int O_NONBLOCK = constant("O_NONBLOCK");
    static final int O_CLOEXEC = constant("O_CLOEXEC");

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
    static final int SO_TYPE = constant("SO_TYPE");
    static final int SO_RCVLOWAT = constant("SO_RCVLOWAT");
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
    static final int TCP_DEFER_ACCEPT = constant("TCP_DEFER_ACCEPT");
    static final int IP_TOS = constant("IP_TOS");
    static final int IP_TTL = constant("IP_TTL");
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
}
