package io.conduit.kqueue;

import io.conduit.transport.spi.unix.NativeMemory;

import java.nio.ByteBuffer;

/**
 * The one package-private static facade of every native entry point of the kqueue transport (one facade per OS):
 * JNI today, so a change of binding technology (FFM) touches this file only. The C side
 * ({@code native-fragments/src/main/c/kqueue/conduit_kqueue.c}) registers these methods from {@code JNI_OnLoad}
 * with {@code RegisterNatives}; each is about one system call and carries no policy.
 *
 * <p><b>Results.</b> Every native returns {@code -errno} on failure (see {@link NativeAbi#ERRORS}); expected outcomes
 * ({@code EAGAIN}, {@code EINTR}, {@code EINPROGRESS}) come back as such values, never as exceptions.
 *
 * <p><b>Memory.</b> No {@code sun.misc.Unsafe}: kevent and iovec arrays are direct buffers ({@link NativeMemory})
 * whose address is obtained once with {@link #addressOf(ByteBuffer)}; the owner keeps the buffer reachable while
 * the kernel uses the address.
 *
 * <p><b>Socket addresses</b> cross as raw {@code struct sockaddr} bytes ({@link NativeAbi#SOCKADDR}); an "address out"
 * array ({@link NativeAbi#ADDRESS_OUT_SIZE} bytes) receives the length as a native-order int, then the bytes.
 *
 * <p><b>No static initialiser</b> (see {@link NativeAbi}). Threading: static and thread-safe as the underlying
 * system calls are; {@code kevent(2)} on one kqueue may be called from several threads (a wake-up trigger
 * while the loop waits).
 */
final class Native {

    private Native() {
    }

    // ------------------------------------------------------------------ memory and diagnostics

    /** @return the address of a direct buffer's byte 0, or 0 for a heap buffer */
    static native long addressOf(ByteBuffer buffer);

    /** @return {@code strerror(errno)}, e.g. {@code "Connection refused"} */
    static native String strerror(int errno);

    /** @return the names of the library's constants, index-aligned with {@link #constantValues()} */
    static native String[] constantNames();

    /** @return the values of the library's constants */
    static native int[] constantValues();

    // ------------------------------------------------------------------ kqueue(2), kevent(2)

    /** {@code kqueue()} (close-on-exec). @return the kqueue descriptor or -errno */
    static native int kqueue();

    /**
     * {@code kevent(kq, &change, 1, NULL, 0, NULL)} with {@code EV_SET(&change, ident, filter, flags, fflags, data,
     * udata)}: applies one change at once (errors come back as -errno, e.g. {@code -ENOENT} for
     * {@code EV_DELETE} of a missing registration).
     *
     * @return 0 or -errno
     */
    static native int keventChange(int kq, long ident, int filter, int flags, int fflags, long data, long udata);

    /**
     * {@code kevent(2)}: applies {@code nchanges} {@code struct kevent}s at {@code changesAddress}, then waits for
     * up to {@code maxEvents} events into {@code eventsAddress}.
     *
     * @param timeoutNanos {@code < 0} waits until an event (NULL timeout), {@code 0} polls
     * @return the number of events, or -errno ({@code -EINTR} is an expected value)
     */
    static native int keventWait(int kq, long changesAddress, int nchanges, long eventsAddress, int maxEvents,
                                 long timeoutNanos);

    // ------------------------------------------------------------------ sockets

    /** {@code socket(2)}, then non-blocking, close-on-exec and {@code SO_NOSIGPIPE} where it exists. @return fd or -errno */
    static native int socket(int domain, int type, int protocol);

    /** {@code bind(2)} of {@code length} sockaddr bytes. @return 0 or -errno */
    static native int bind(int fd, byte[] address, int length);

    /** {@code listen(2)}. @return 0 or -errno */
    static native int listen(int fd, int backlog);

    /** {@code accept(2)}; the new socket is prepared as by {@link #socket}. @return fd or -errno */
    static native int accept(int fd, byte[] addressOut);

    /** {@code connect(2)}. @return 0, or -errno ({@code -EINPROGRESS} for a pending non-blocking connect) */
    static native int connect(int fd, byte[] address, int length);

    /**
     * {@code connect(2)} to {@code AF_UNSPEC}: dissolves a datagram association. The BSDs may report an error for
     * the unusable address after dissolving it ({@code EAFNOSUPPORT} is already taken as success); the caller
     * checks with {@link #getpeername}.
     *
     * @return 0 or -errno
     */
    static native int disconnect(int fd);

    /** {@code getsockopt(SO_ERROR)}. @return -(pending error), 0 when none, or -errno of the call */
    static native int socketError(int fd);

    /** {@code shutdown(2)}. @return 0 or -errno */
    static native int shutdown(int fd, int how);

    /** {@code close(2)}. @return 0 or -errno */
    static native int close(int fd);

    /** {@code read(2)}. @return bytes (0 = end-of-stream) or -errno */
    static native int read(int fd, long address, int length);

    /** {@code writev(2)} of {@code iovCount} iovecs. @return bytes or -errno */
    static native long writev(int fd, long iovAddress, int iovCount);

    /** {@code send(2)} to the connected peer (no {@code SIGPIPE}). @return bytes or -errno */
    static native int send(int fd, long address, int length);

    /** {@code sendto(2)} (no {@code SIGPIPE}). @return bytes or -errno */
    static native int sendto(int fd, long address, int length, byte[] sockaddr, int sockaddrLength);

    /**
     * {@code recvmsg(2)} of one datagram into {@code length} bytes at {@code address}: the sender goes to
     * {@code addressOut}, {@code msg_flags} to {@code flagsOut[0]} ({@link NativeAbi#MSG_TRUNC} when the datagram was
     * longer and was cut).
     *
     * @return bytes stored (0 = an empty datagram) or -errno
     */
    static native int recvmsg(int fd, long address, int length, byte[] addressOut, int[] flagsOut);

    /** {@code getsockname(2)} into an address-out array. @return 0 or -errno */
    static native int getsockname(int fd, byte[] addressOut);

    /** {@code getpeername(2)} into an address-out array. @return 0 or -errno ({@code -ENOTCONN}) */
    static native int getpeername(int fd, byte[] addressOut);

    /** {@code setsockopt(2)} of an {@code int}. @return 0 or -errno */
    static native int setsockoptInt(int fd, int level, int optname, int value);

    /**
     * Joins or leaves a multicast group: {@code IP_ADD_MEMBERSHIP}/{@code IP_DROP_MEMBERSHIP} ({@code struct ip_mreq})
     * for a 4-byte group, {@code IPV6_JOIN_GROUP}/{@code IPV6_LEAVE_GROUP} ({@code struct ipv6_mreq}) for 16 bytes.
     *
     * @param ifaddr the interface's IPv4 address, or {@code null} for any (IPv4 only)
     * @param ifindex the interface index (IPv6 only)
     * @return 0 or {@code -errno}
     */
    static native int multicastMembership(int fd, boolean join, byte[] group, byte[] ifaddr, int ifindex);

    /** {@code getsockopt(2)} of an {@code int} into {@code out[0]}. @return 0 or -errno */
    static native int getsockoptInt(int fd, int level, int optname, int[] out);

    /** {@code setsockopt(SO_LINGER)} with {@code struct linger}. @return 0 or -errno */
    static native int setsockoptLinger(int fd, int onoff, int seconds);

    /** {@code getsockopt(SO_LINGER)}: {@code out = {l_onoff, l_linger}}. @return 0 or -errno */
    static native int getsockoptLinger(int fd, int[] out);

    /**
     * {@code setsockopt(SO_ACCEPTFILTER)} with {@code struct accept_filter_arg} naming an {@code accf(9)} filter
     * ({@code null} removes it). @return 0 or -errno ({@code -ENOPROTOOPT} where the system has no accept filters)
     */
    static native int setAcceptFilter(int fd, byte[] name);

    /** Peer credentials of a Unix-domain socket: {@code out = {pid (-1 unknown), uid, gid}}. @return 0 or -errno */
    static native int getPeerCredentials(int fd, int[] out);

    /**
     * {@code setsockopt(SO_ATTACH_REUSEPORT_CBPF)} with a one-instruction program answering {@code index}: the
     * {@code SO_REUSEPORT} group of {@code fd} gives new connections to its listener at that index (socket(7)).
     * @return 0 or -errno ({@code -ENOPROTOOPT} where the system lacks the option)
     */
    static native int attachReuseportCbpf(int fd, int index);

    /** {@code setsockopt(SO_DETACH_REUSEPORT_BPF)}. @return 0 or -errno ({@code -ENOENT}: no program attached) */
    static native int detachReuseportBpf(int fd);
}
