package io.conduit.epoll;

import io.conduit.transport.spi.unix.IovArray;
import io.conduit.transport.spi.unix.NativeMemory;

import java.nio.ByteBuffer;

/**
 * The one static facade of every native entry point of the epoll transport (one facade per OS): JNI today, so
 * a change of binding technology (FFM) touches this file only. The C side
 * ({@code native-fragments/src/main/c/epoll/conduit_epoll.c}) registers these methods from {@code JNI_OnLoad}
 * with {@code RegisterNatives}; each is about one system call and carries no policy.
 *
 * <p><b>Results.</b> Every native returns {@code -errno} on failure (see {@link NativeAbi#ERRORS}); expected outcomes
 * ({@link NativeAbi#EAGAIN}, {@link NativeAbi#EINTR}, {@link NativeAbi#EINPROGRESS}) come back as such values, never as exceptions.
 *
 * <p><b>Memory.</b> No {@code sun.misc.Unsafe}: native memory is a direct {@link ByteBuffer} (see
 * {@link NativeMemory}) whose address is obtained <em>once</em> with {@link #addressOf(ByteBuffer)}
 * ({@code GetDirectBufferAddress}); natives take {@code long} addresses into it, and Java reads and writes
 * the structs through the same buffer's absolute accessors in native byte order. The owner must keep the
 * buffer reachable while the kernel uses the address. The buffers of one read or write (a message's direct
 * {@code ByteBuffer}, changing every call) go to the {@code *Buffer(s)} natives instead, with the position and
 * limit Java read from them: the C side resolves the address in the same call as the system call, so each I/O
 * costs one JNI transition rather than two ({@link #readBuffer}, {@link #writeBuffer}, {@link #sendtoBuffer},
 * {@link #recvfromBuffer}); they return {@code -EINVAL} for a buffer that is not direct. A gathering write keeps
 * one {@code addressOf} per buffer into its iovec array: filling the iovec from a {@code ByteBuffer[]} in C
 * measured slower from 8 buffers on (each element costs the C side several JNI calls; see
 * {@code docs/benchmarks.md}).
 *
 * <p><b>Socket addresses</b> cross as raw {@code struct sockaddr} bytes in {@code byte[]}s, laid out and
 * parsed by {@link NativeAbi#SOCKADDR} with the offsets in {@link NativeAbi}. An "address out" array ({@link NativeAbi#ADDRESS_OUT_SIZE} bytes)
 * receives the {@code socklen_t} length as a native-order int, then the sockaddr bytes.
 *
 * <p><b>ABI facts</b> (struct sizes, offsets, flags, errno and option numbers) live in {@link NativeAbi}, read
 * from the library once it is loaded: nothing is hard-coded.
 *
 * <p><b>No static initialiser.</b> {@code JNI_OnLoad} finds this class with {@code FindClass}, which
 * initialises it; keeping the initialisation empty means loading the library never runs Java code (and never
 * waits for another class's initialisation lock). Keep it that way: only natives and stateless helpers here.
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
     * @param op     {@link NativeAbi#EPOLL_CTL_ADD}, {@link NativeAbi#EPOLL_CTL_MOD} or {@link NativeAbi#EPOLL_CTL_DEL}
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

    /** {@code eventfd(2)}; flags {@link NativeAbi#EFD_CLOEXEC} | {@link NativeAbi#EFD_NONBLOCK}. @return fd or -errno */
    static native int eventfd(int initialValue, int flags);

    /** {@code write(2)} of the 8-byte counter increment. @return 0 or -errno ({@code -EAGAIN} on overflow) */
    static native int eventfdWrite(int fd, long value);

    /** {@code read(2)} of the 8-byte counter (reset to 0). @return the counter (&lt; 2^63) or -errno */
    static native long eventfdRead(int fd);

    /** {@code timerfd_create(2)}; clock {@link NativeAbi#CLOCK_MONOTONIC}, flags {@link NativeAbi#TFD_CLOEXEC} | {@link NativeAbi#TFD_NONBLOCK}. */
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

    /** {@code socket(2)}; callers OR {@link NativeAbi#SOCK_NONBLOCK} | {@link NativeAbi#SOCK_CLOEXEC} into {@code type}. */
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
     * {@code accept4(2)}; flags {@link NativeAbi#SOCK_NONBLOCK} | {@link NativeAbi#SOCK_CLOEXEC}.
     *
     * @param addressOut {@link NativeAbi#ADDRESS_OUT_SIZE} bytes receiving the peer address, or {@code null}
     * @return the accepted fd or -errno ({@code -EAGAIN} when none is pending)
     */
    static native int accept4(int fd, byte[] addressOut, int flags);

    /** {@code connect(2)}. @return 0, {@code -EINPROGRESS} (non-blocking, expected) or -errno */
    static native int connect(int fd, byte[] sockaddr, int length);

    /** {@code getsockopt(SO_ERROR)} once a non-blocking connect is writable. @return 0 or -(pending error) */
    static native int finishConnect(int fd);

    /** {@code shutdown(2)}; how {@link NativeAbi#SHUT_RD}, {@link NativeAbi#SHUT_WR} or {@link NativeAbi#SHUT_RDWR}. */
    static native int shutdown(int fd, int how);

    /**
     * {@code open(2)}, e.g. of a file for {@link #sendfile}; callers add {@link NativeAbi#O_CLOEXEC}.
     *
     * @param path the path's bytes (UTF-8), without a terminating NUL
     * @return the fd or -errno
     */
    static native int open(byte[] path, int flags, int mode);

    /** {@code close(2)}. @return 0 or -errno */
    static native int close(int fd);

    /** {@code read(2)}. @return bytes read, 0 at EOF, or -errno */
    static native int read(int fd, long address, int length);

    /** {@code write(2)}. @return bytes written or -errno */
    static native int write(int fd, long address, int length);

    /**
     * {@code read(2)} into bytes {@code [position, limit)} of a direct buffer (its position and limit are not
     * changed: the caller advances them).
     *
     * @return bytes read, 0 at EOF, or -errno ({@code -EINVAL} for a heap buffer or {@code limit < position})
     */
    static native int readBuffer(int fd, ByteBuffer buffer, int position, int limit);

    /**
     * {@code write(2)} of bytes {@code [position, limit)} of a direct buffer (position and limit unchanged).
     *
     * @return bytes written, or -errno ({@code -EINVAL} for a heap buffer or {@code limit < position})
     */
    static native int writeBuffer(int fd, ByteBuffer buffer, int position, int limit);

    /**
     * {@code sendto(2)} of bytes {@code [position, limit)} of a direct buffer to {@code sockaddrLength} bytes of
     * a sockaddr. @return bytes sent or -errno ({@code -EINVAL} for a heap buffer)
     */
    static native int sendtoBuffer(int fd, ByteBuffer buffer, int position, int limit, int flags, byte[] sockaddr,
            int sockaddrLength);

    /**
     * {@code recvfrom(2)} into bytes {@code [position, limit)} of a direct buffer; the sender goes to
     * {@code addressOut}. @return bytes received or -errno ({@code -EINVAL} for a heap buffer)
     */
    static native int recvfromBuffer(int fd, ByteBuffer buffer, int position, int limit, int flags,
            byte[] addressOut);

    /** {@code readv(2)} over {@code iovCount} {@code struct iovec} (see {@link IovArray}). */
    static native long readv(int fd, long iovAddress, int iovCount);

    /** {@code writev(2)}: a gathering write over {@code iovCount} {@code struct iovec}. */
    static native long writev(int fd, long iovAddress, int iovCount);

    /** {@code sendto(2)} to {@code sockaddrLength} bytes of a sockaddr. @return bytes sent or -errno */
    static native int sendto(int fd, long address, int length, int flags, byte[] sockaddr, int sockaddrLength);

    /** {@code recvfrom(2)}; the sender goes to {@code addressOut}. @return bytes received or -errno */
    static native int recvfrom(int fd, long address, int length, int flags, byte[] addressOut);

    /** {@code sendmmsg(2)} over {@code vlen} {@code struct mmsghdr} ({@link io.conduit.transport.spi.unix.MsghdrArray}). */
    static native int sendmmsg(int fd, long msgvecAddress, int vlen, int flags);

    /** {@code recvmmsg(2)} without timeout over {@code vlen} {@code struct mmsghdr}. */
    static native int recvmmsg(int fd, long msgvecAddress, int vlen, int flags);

    /** {@code recvmsg(2)} into one {@code struct msghdr} (ancillary data, e.g. {@link NativeAbi#IP_ORIGDSTADDR}). */
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

    /**
     * {@code setsockopt(SO_ATTACH_REUSEPORT_CBPF)} with a one-instruction program answering {@code index}: the
     * {@code SO_REUSEPORT} group of {@code fd} gives new connections to its listener at that index (socket(7)).
     * @return 0 or -errno ({@code -ENOPROTOOPT} where the system lacks the option)
     */
    static native int attachReuseportCbpf(int fd, int index);

    /** {@code setsockopt(SO_DETACH_REUSEPORT_BPF)}. @return 0 or -errno ({@code -ENOENT}: no program attached) */
    static native int detachReuseportBpf(int fd);

    /**
     * {@code getsockopt(TCP_INFO)}, {@code tcp(7)}: {@code out[0..15)} = state, ca_state, retransmits, rto, snd_mss,
     * rcv_mss, unacked, lost, retrans, pmtu, rtt, rttvar, snd_ssthresh, snd_cwnd, total_retrans (times in
     * microseconds). @return 0 or -errno
     */
    static native int getTcpInfo(int fd, long[] out);

    /** {@code setsockopt(2)} of a struct option laid out in {@code value[0..length)}. @return 0 or -errno */
    static native int setsockoptBytes(int fd, int level, int optname, byte[] value, int length);

    /**
     * The descriptor behind a JDK {@link java.nio.channels.FileChannel} (its {@code FileChannelImpl.fd} →
     * {@code FileDescriptor.fd}), read through JNI field access, for {@link #sendfile}.
     *
     * @return the fd, or {@code -EBADF} when the channel is not the JDK's implementation or is closed
     */
    static native int fileDescriptorOf(Object fileChannel);

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
        return new byte[NativeAbi.ADDRESS_OUT_SIZE];
    }
}
