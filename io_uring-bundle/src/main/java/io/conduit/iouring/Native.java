package io.conduit.iouring;

import java.nio.ByteBuffer;

/**
 * The one static facade of every native entry point of the io_uring transport: JNI today, so a change of binding
 * technology (FFM) touches this file only. The C side ({@code native-fragments/src/main/c/iouring/conduit_iouring.c},
 * with the shared {@code ../unix/conduit_unix.c}) registers these methods from {@code JNI_OnLoad}; each is about one
 * system call, made with {@code syscall(2)} for the io_uring calls (no liburing), and carries no policy.
 *
 * <p><b>Results.</b> Every native returns {@code -errno} on failure (see {@link NativeAbi#ERRORS}).
 *
 * <p><b>Memory.</b> No {@code sun.misc.Unsafe}: the rings are mapped by {@link #mmap} and wrapped by
 * {@link #directBuffer} as direct {@link ByteBuffer}s, which {@link IoUringRing} reads and writes with the memory
 * ordering the kernel needs. Buffers handed to the kernel in a submission are direct buffers whose address comes
 * from {@link #addressOf}; their owner keeps them reachable until the completion arrives.
 *
 * <p><b>No static initialiser</b>, so {@code JNI_OnLoad} ({@code FindClass}) runs no Java code.
 *
 * <p>Threading: all methods are static and thread-safe as the underlying system calls are.
 */
final class Native {

    private Native() {
    }

    // ------------------------------------------------------------------ shared Unix natives (conduit_unix.c)

    /** @return the address of a direct buffer's first byte (its position 0), or 0 for a heap buffer */
    static native long addressOf(ByteBuffer buffer);

    /** @return {@code strerror(errno)} */
    static native String strerror(int errno);

    /** @return the names of the library's constants, index-aligned with {@link #constantValues()} */
    static native String[] constantNames();

    /** @return the values of the library's constants */
    static native int[] constantValues();

    /** {@code bind(2)} to {@code length} bytes of a sockaddr. @return 0 or -errno */
    static native int bind(int fd, byte[] sockaddr, int length);

    /** {@code listen(2)}. @return 0 or -errno */
    static native int listen(int fd, int backlog);

    /** {@code connect(2)} (registered with the shared natives; this transport connects through the ring). */
    static native int connect(int fd, byte[] sockaddr, int length);

    /** {@code read(2)} (registered with the shared natives; this transport receives through the ring). */
    static native int read(int fd, long address, int length);

    /** {@code writev(2)} (registered with the shared natives; this transport sends through the ring). */
    static native long writev(int fd, long iovAddress, int iovCount);

    /** {@code getsockopt(SO_PEERCRED)} of a Unix-domain socket: {@code out = {pid, uid, gid}}. @return 0 or -errno */
    static native int getPeerCredentials(int fd, int[] out);

    /**
     * {@code setsockopt(SO_ATTACH_REUSEPORT_CBPF)} with a one-instruction program answering {@code index}: the
     * {@code SO_REUSEPORT} group of {@code fd} gives new connections to its listener at that index (socket(7)).
     * @return 0 or -errno ({@code -ENOPROTOOPT} where the system lacks the option)
     */
    static native int attachReuseportCbpf(int fd, int index);

    /** {@code setsockopt(SO_DETACH_REUSEPORT_BPF)}. @return 0 or -errno ({@code -ENOENT}: no program attached) */
    static native int detachReuseportBpf(int fd);

    /** {@code shutdown(2)}. @return 0 or -errno */
    static native int shutdown(int fd, int how);

    /** {@code getsockname(2)} into an address-out array. @return 0 or -errno */
    static native int getsockname(int fd, byte[] addressOut);

    /** {@code getpeername(2)} into an address-out array. @return 0 or -errno */
    static native int getpeername(int fd, byte[] addressOut);

    /** {@code setsockopt(2)} of an {@code int} option. @return 0 or -errno */
    static native int setsockoptInt(int fd, int level, int optname, int value);

    /** {@code getsockopt(2)} of an {@code int} option into {@code valueOut[0]}. @return 0 or -errno */
    static native int getsockoptInt(int fd, int level, int optname, int[] valueOut);

    /** {@code setsockopt(SO_LINGER)}. @return 0 or -errno */
    static native int setsockoptLinger(int fd, int onoff, int seconds);

    /** {@code getsockopt(SO_LINGER)}: {@code out = {l_onoff, l_linger}}. @return 0 or -errno */
    static native int getsockoptLinger(int fd, int[] out);

    // ------------------------------------------------------------------ io_uring(7)

    /**
     * {@code io_uring_setup(2)} with {@code params.flags = flags} and {@code params.cq_entries = cqEntries}
     * (honoured with {@link NativeAbi#IORING_SETUP_CQSIZE}).
     *
     * @param paramsOut {@link NativeAbi#PARAMS_LENGTH} ints receiving the parameters the kernel filled in, at the
     *        indices {@code NativeAbi.PARAMS_*} (entries, features, ring offsets)
     * @return the ring fd or -errno ({@code -ENOSYS}: no io_uring; {@code -EPERM}: disabled or blocked)
     */
    static native int ioUringSetup(int entries, int flags, int cqEntries, int[] paramsOut);

    /**
     * {@code io_uring_enter(2)}.
     *
     * @param ringFd the ring's descriptor, or with {@link NativeAbi#IORING_ENTER_REGISTERED_RING} in {@code flags} its
     *        index among the calling thread's registered rings ({@link #ioUringRegisterRingFd})
     * @param timeoutNanos with {@link NativeAbi#IORING_ENTER_GETEVENTS}: the longest wait ({@code >= 0}, passed with
     *        {@code IORING_ENTER_EXT_ARG}), or {@code -1} to wait without a limit
     * @return the submission entries consumed, or -errno ({@code -ETIME} when the wait timed out, {@code -EINTR})
     */
    static native int ioUringEnter(int ringFd, int toSubmit, int minComplete, int flags, long timeoutNanos);

    /**
     * {@code io_uring_register(IORING_REGISTER_PROBE)}.
     *
     * @param supported receives 1 at each opcode the kernel supports
     * @return the kernel's last opcode + 1, or -errno
     */
    static native int ioUringProbe(int ringFd, byte[] supported);

    /**
     * {@code io_uring_register(IORING_REGISTER_PBUF_RING)}: a provided buffer ring of {@code entries}
     * {@code struct io_uring_buf} at {@code ringAddress} (page aligned) as buffer group {@code groupId}.
     *
     * @return 0 or -errno ({@code -EINVAL} before Linux 5.19)
     */
    static native int ioUringRegisterBufRing(int ringFd, long ringAddress, int entries, int groupId);

    /** {@code io_uring_register(IORING_UNREGISTER_PBUF_RING)} of {@code groupId}. @return 0 or -errno */
    static native int ioUringUnregisterBufRing(int ringFd, int groupId);

    /**
     * {@code io_uring_register(IORING_REGISTER_RING_FDS)} of one ring, at any free index of the calling thread's
     * registered rings: {@link #ioUringEnter} on that thread may then pass the index with
     * {@link NativeAbi#IORING_ENTER_REGISTERED_RING} instead of the descriptor.
     *
     * @return the index (0 and up) or -errno ({@code -EINVAL} before Linux 5.18; {@code -EBUSY} when the thread has
     *         16 registered already)
     */
    static native int ioUringRegisterRingFd(int ringFd);

    /**
     * {@code io_uring_register(IORING_UNREGISTER_RING_FDS)} of the calling thread's registered ring at {@code index}.
     *
     * @return 0 or -errno
     */
    static native int ioUringUnregisterRingFd(int ringFd, int index);

    /** {@code mmap(2)} of a ring, shared, read and write. @return the address or -errno */
    static native long mmap(int fd, long offset, long length);

    /** {@code munmap(2)}. @return 0 or -errno */
    static native int munmap(long address, long length);

    /** @return a direct buffer over {@code capacity} bytes at {@code address} (a mapped ring) */
    static native ByteBuffer directBuffer(long address, int capacity);

    // ------------------------------------------------------------------ descriptors

    /** {@code eventfd(2)}. @return fd or -errno */
    static native int eventfd(int initialValue, int flags);

    /** {@code write(2)} of an 8-byte eventfd increment. @return 0 or -errno */
    static native int eventfdWrite(int fd, long value);

    /** {@code socket(2)}. @return fd or -errno */
    static native int socket(int domain, int type, int protocol);

    /** {@code close(2)}. @return 0 or -errno */
    static native int close(int fd);

    /**
     * {@code accept4(2)} without the peer's address (a listener about to close takes its queue with it).
     * @return the new descriptor or -errno ({@code -EAGAIN} when none is pending)
     */
    static native int accept4(int fd, int flags);

    /** {@code setsockopt(2)} of a struct option ({@code ip_mreqn}, {@code ipv6_mreq}) of {@code length} bytes. @return 0 or -errno */
    static native int setsockoptBytes(int fd, int level, int optname, byte[] value, int length);

    /** {@code sendmsg(2)} of the {@code struct msghdr} at {@code msghdrAddress}. @return bytes sent or -errno */
    static native int sendmsg(int fd, long msghdrAddress, int flags);

    /**
     * {@code recvmsg(2)} into the {@code struct msghdr} at {@code msghdrAddress}.
     *
     * @return bytes received (with {@code MSG_TRUNC} in {@code flags}: the datagram's real length) or -errno
     */
    static native int recvmsg(int fd, long msghdrAddress, int flags);

    // ------------------------------------------------------------------ file regions, zero-copy forwarding

    /** {@code write(2)} of {@code length} bytes at {@code address}. @return bytes written or -errno */
    static native int write(int fd, long address, int length);

    /** {@code pipe2(2)}. @param fds receives {read end, write end} @return 0 or -errno */
    static native int pipe2(int[] fds, int flags);

    /**
     * {@code sendfile(2)} of up to {@code count} bytes at {@code offset} of {@code inFd} (its file position is neither
     * used nor moved).
     *
     * @return bytes sent, 0 at end of file, or -errno ({@code -EAGAIN}: the socket is full; {@code -EINVAL}: the file
     *         cannot be spliced)
     */
    static native long sendfile(int outFd, int inFd, long offset, long count);

    /** {@code splice(2)}; an offset &lt; 0 means the descriptor's own position (NULL). @return bytes moved or -errno */
    static native long splice(int fdIn, long offIn, int fdOut, long offOut, long length, int flags);

    /**
     * @return the descriptor of a JDK {@code FileChannel} (its {@code FileDescriptor}, read through JNI field access),
     *         or {@code -EBADF} for another implementation or a closed one
     */
    static native int fileDescriptorOf(Object fileChannel);
}
