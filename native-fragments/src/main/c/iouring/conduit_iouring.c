/*
 * Conduit io_uring transport: the JNI veneer over the three io_uring system calls and the few other calls the
 * transport makes outside the ring (among them sendfile(2) and splice(2) for file regions and zero-copy
 * forwarding, which IORING_OP_SPLICE would run on an io-wq worker thread).
 *
 * Rules (DESIGN.md, "Transports and native loading"):
 *  - raw system calls (syscall(__NR_io_uring_setup/enter/register)) with <linux/io_uring.h> from the kernel
 *    headers; no liburing, which a fresh machine does not have;
 *  - about one function per system call, no policy: ring set-up fallbacks, submission, completion dispatch and
 *    buffer ownership live in Java (io.conduit.iouring);
 *  - every failure returns -errno; EAGAIN, EINTR, ETIME are returned like any other value;
 *  - the rings are mapped here (mmap) and wrapped as direct ByteBuffers (NewDirectByteBuffer); Java reads and
 *    writes them with the acquire/release ordering the kernel expects. The layouts Java needs (struct
 *    io_uring_sqe, struct io_uring_cqe, the ring offsets) and every opcode and flag are published by
 *    constantNames()/constantValues();
 *  - JNI_OnLoad only looks up the facade class and registers the natives (conduit_unix.c).
 *
 * The socket calls every Unix transport shares (bind, listen, getsockname, setsockopt, shutdown, ...) come from
 * ../unix/conduit_unix.c, compiled into this library too.
 */
#if defined(__linux__) && !defined(__LP64__)
#define _FILE_OFFSET_BITS 64
#define _TIME_BITS 64
#endif
#define _GNU_SOURCE
#include "conduit_unix.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <linux/io_uring.h>
#include <linux/time_types.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#define FACADE_CLASS "io/conduit/iouring/Native"

/* Older kernel headers (before 6.0/6.1) lack these flags; the values are the kernel's and never change. */
#ifndef IORING_SETUP_SINGLE_ISSUER
#define IORING_SETUP_SINGLE_ISSUER (1U << 12)
#endif
#ifndef IORING_SETUP_DEFER_TASKRUN
#define IORING_SETUP_DEFER_TASKRUN (1U << 13)
#endif
#ifndef IORING_SETUP_TASKRUN_FLAG
#define IORING_SETUP_TASKRUN_FLAG (1U << 9)
#endif
#ifndef IORING_SQ_TASKRUN
#define IORING_SQ_TASKRUN (1U << 2)
#endif

#define SQE_OFFSET(field) KV("SQE_" #field "_OFFSET", offsetof(struct io_uring_sqe, field))

/* ---- ABI facts and constants of io_uring(7) ---- */

static const struct conduit_constant CONSTANTS[] = {
    /* struct io_uring_sqe (64 bytes) and struct io_uring_cqe (16 bytes) */
    KV("SQE_SIZE", sizeof(struct io_uring_sqe)),
    SQE_OFFSET(opcode), SQE_OFFSET(flags), SQE_OFFSET(ioprio), SQE_OFFSET(fd), SQE_OFFSET(off),
    SQE_OFFSET(addr), SQE_OFFSET(len), SQE_OFFSET(msg_flags), SQE_OFFSET(accept_flags), SQE_OFFSET(cancel_flags),
    SQE_OFFSET(user_data), SQE_OFFSET(buf_group), SQE_OFFSET(personality), SQE_OFFSET(file_index),
    KV("CQE_SIZE", sizeof(struct io_uring_cqe)),
    KV("CQE_USER_DATA_OFFSET", offsetof(struct io_uring_cqe, user_data)),
    KV("CQE_RES_OFFSET", offsetof(struct io_uring_cqe, res)),
    KV("CQE_FLAGS_OFFSET", offsetof(struct io_uring_cqe, flags)),
    /* mmap(2) offsets of the rings */
    K(IORING_OFF_SQ_RING), K(IORING_OFF_CQ_RING), K(IORING_OFF_SQES),
    /* io_uring_setup(2) flags and features */
    K(IORING_SETUP_CQSIZE), K(IORING_SETUP_CLAMP), K(IORING_SETUP_SUBMIT_ALL), K(IORING_SETUP_COOP_TASKRUN),
    K(IORING_SETUP_SINGLE_ISSUER), K(IORING_SETUP_TASKRUN_FLAG), K(IORING_SETUP_DEFER_TASKRUN),
    K(IORING_FEAT_SINGLE_MMAP), K(IORING_FEAT_NODROP), K(IORING_FEAT_EXT_ARG), K(IORING_FEAT_FAST_POLL),
    /* io_uring_enter(2) flags, ring flags */
    K(IORING_ENTER_GETEVENTS), K(IORING_ENTER_EXT_ARG), K(IORING_ENTER_REGISTERED_RING), K(IORING_SQ_CQ_OVERFLOW),
    K(IORING_SQ_TASKRUN),
    /* io_uring_register(2) */
    K(IORING_REGISTER_PROBE), K(IO_URING_OP_SUPPORTED),
    /* opcodes */
    K(IORING_OP_NOP), K(IORING_OP_READ), K(IORING_OP_WRITEV), K(IORING_OP_SEND), K(IORING_OP_RECV),
    K(IORING_OP_ACCEPT), K(IORING_OP_CONNECT), K(IORING_OP_ASYNC_CANCEL), K(IORING_OP_CLOSE),
    K(IORING_OP_POLL_ADD), K(IORING_OP_SEND_ZC), K(IORING_OP_LAST),
    /* SQE and CQE flags */
    K(IOSQE_IO_LINK), K(IOSQE_BUFFER_SELECT), K(IORING_ACCEPT_MULTISHOT), K(IORING_RECV_MULTISHOT), K(IORING_CQE_F_MORE),
    K(IORING_CQE_F_BUFFER), K(IORING_CQE_BUFFER_SHIFT), K(IORING_CQE_F_NOTIF), K(IORING_SEND_ZC_REPORT_USAGE),
    K(IORING_NOTIF_USAGE_ZC_COPIED),
    /* provided buffer rings (Linux 5.19): struct io_uring_buf, the tail of struct io_uring_buf_ring */
    K(IORING_REGISTER_PBUF_RING), K(IORING_UNREGISTER_PBUF_RING),
    KV("BUF_SIZE", sizeof(struct io_uring_buf)),
    KV("BUF_ADDR_OFFSET", offsetof(struct io_uring_buf, addr)),
    KV("BUF_LEN_OFFSET", offsetof(struct io_uring_buf, len)),
    KV("BUF_BID_OFFSET", offsetof(struct io_uring_buf, bid)),
    KV("BUF_RING_TAIL_OFFSET", offsetof(struct io_uring_buf_ring, tail)),
    /* errno values io_uring reports in CQEs (the common ones are published by conduit_unix.c) */
    K(ECANCELED), K(ETIME), K(EOVERFLOW), K(EBUSY),
    /* socket(2), eventfd(2), send(2) */
    K(SOCK_NONBLOCK), K(SOCK_CLOEXEC), K(EFD_CLOEXEC), K(EFD_NONBLOCK), K(MSG_NOSIGNAL),
    /* datagrams (IoUringDatagramSocket): recvmsg(2)/sendmsg(2) over struct msghdr, POLLIN/POLLOUT, ip(7), ipv6(7) */
    K(IORING_OP_RECVMSG), K(MSG_TRUNC), K(MSG_CTRUNC), K(MSG_DONTWAIT), K(POLLIN), K(POLLOUT),
    CONDUIT_MSGHDR_CONSTANTS,
    CONDUIT_LINUX_UDP_CONSTANTS,
    /* file regions and zero-copy forwarding (made outside the ring): sendfile(2), splice(2), pipe2(2) */
    K(SPLICE_F_MOVE), K(SPLICE_F_NONBLOCK), K(O_NONBLOCK), K(O_CLOEXEC),
    /* io_uring_setup's parameters as ioUringSetup hands them out: indices into its int[] */
    KV("PARAMS_SQ_ENTRIES", 0), KV("PARAMS_CQ_ENTRIES", 1), KV("PARAMS_FEATURES", 2),
    KV("PARAMS_SQ_HEAD", 3), KV("PARAMS_SQ_TAIL", 4), KV("PARAMS_SQ_RING_MASK", 5),
    KV("PARAMS_SQ_RING_ENTRIES", 6), KV("PARAMS_SQ_FLAGS", 7), KV("PARAMS_SQ_DROPPED", 8), KV("PARAMS_SQ_ARRAY", 9),
    KV("PARAMS_CQ_HEAD", 10), KV("PARAMS_CQ_TAIL", 11), KV("PARAMS_CQ_RING_MASK", 12),
    KV("PARAMS_CQ_RING_ENTRIES", 13), KV("PARAMS_CQ_OVERFLOW", 14), KV("PARAMS_CQES", 15),
    KV("PARAMS_LENGTH", 16),
};

/* ---- io_uring_setup(2), io_uring_enter(2), io_uring_register(2) ---- */

/*
 * io_uring_setup(entries, params) with params.flags = flags and params.cq_entries = cqEntries (used with
 * IORING_SETUP_CQSIZE). out receives PARAMS_LENGTH ints in the PARAMS_* order. Returns the ring fd or -errno.
 */
static jint c_ioUringSetup(JNIEnv *env, jclass clazz, jint entries, jint flags, jint cqEntries, jintArray out) {
    struct io_uring_params p;
    memset(&p, 0, sizeof p);
    p.flags = (__u32) flags;
    p.cq_entries = (__u32) cqEntries;
    int fd = (int) syscall(__NR_io_uring_setup, (unsigned) entries, &p);
    if (fd < 0) {
        return -errno;
    }
    jint v[16] = {
        (jint) p.sq_entries, (jint) p.cq_entries, (jint) p.features,
        (jint) p.sq_off.head, (jint) p.sq_off.tail, (jint) p.sq_off.ring_mask, (jint) p.sq_off.ring_entries,
        (jint) p.sq_off.flags, (jint) p.sq_off.dropped, (jint) p.sq_off.array,
        (jint) p.cq_off.head, (jint) p.cq_off.tail, (jint) p.cq_off.ring_mask, (jint) p.cq_off.ring_entries,
        (jint) p.cq_off.overflow, (jint) p.cq_off.cqes,
    };
    (*env)->SetIntArrayRegion(env, out, 0, 16, v);
    return fd;
}

/*
 * io_uring_enter(fd, toSubmit, minComplete, flags). With timeoutNanos >= 0 (and IORING_ENTER_GETEVENTS in flags)
 * the wait ends after that long: IORING_ENTER_EXT_ARG with a struct io_uring_getevents_arg whose ts points to
 * the timeout (-ETIME then). Returns the number of SQEs consumed or -errno.
 */
static jint c_ioUringEnter(JNIEnv *env, jclass clazz, jint fd, jint toSubmit, jint minComplete, jint flags,
                           jlong timeoutNanos) {
    if (timeoutNanos < 0) {
        long r = syscall(__NR_io_uring_enter, fd, (unsigned) toSubmit, (unsigned) minComplete, (unsigned) flags,
                         NULL, (size_t) 0);
        return r < 0 ? -errno : (jint) r;
    }
    struct __kernel_timespec ts;
    ts.tv_sec = (long long) (timeoutNanos / 1000000000LL);
    ts.tv_nsec = (long long) (timeoutNanos % 1000000000LL);
    struct io_uring_getevents_arg arg;
    memset(&arg, 0, sizeof arg);
    arg.ts = (__u64) (uintptr_t) &ts;
    long r = syscall(__NR_io_uring_enter, fd, (unsigned) toSubmit, (unsigned) minComplete,
                     (unsigned) flags | IORING_ENTER_EXT_ARG, &arg, sizeof arg);
    return r < 0 ? -errno : (jint) r;
}

/*
 * io_uring_register(IORING_REGISTER_PROBE): supported[op] = 1 for each opcode the kernel has (up to the array's
 * length). Returns the kernel's last_op + 1, or -errno.
 */
static jint c_ioUringProbe(JNIEnv *env, jclass clazz, jint fd, jbyteArray supported) {
    size_t ops = 256;
    size_t size = sizeof(struct io_uring_probe) + ops * sizeof(struct io_uring_probe_op);
    char storage[sizeof(struct io_uring_probe) + 256 * sizeof(struct io_uring_probe_op)];
    memset(storage, 0, size);
    struct io_uring_probe *probe = (struct io_uring_probe *) storage;
    if (syscall(__NR_io_uring_register, fd, IORING_REGISTER_PROBE, probe, (unsigned) ops) < 0) {
        return -errno;
    }
    jsize length = (*env)->GetArrayLength(env, supported);
    for (jsize i = 0; i < length && i < (jsize) probe->ops_len; i++) {
        jbyte v = (probe->ops[i].flags & IO_URING_OP_SUPPORTED) != 0;
        (*env)->SetByteArrayRegion(env, supported, i, 1, &v);
    }
    return (jint) probe->last_op + 1;
}

/*
 * io_uring_register(IORING_REGISTER_PBUF_RING) of a provided buffer ring of `entries` struct io_uring_buf at
 * ringAddress (page aligned), as buffer group groupId. Returns 0 or -errno (-EINVAL before Linux 5.19).
 */
static jint c_ioUringRegisterBufRing(JNIEnv *env, jclass clazz, jint fd, jlong ringAddress, jint entries,
                                     jint groupId) {
    struct io_uring_buf_reg reg;
    memset(&reg, 0, sizeof reg);
    reg.ring_addr = (__u64) ringAddress;
    reg.ring_entries = (__u32) entries;
    reg.bgid = (__u16) groupId;
    return syscall(__NR_io_uring_register, fd, IORING_REGISTER_PBUF_RING, &reg, 1) < 0 ? -errno : 0;
}

/* io_uring_register(IORING_UNREGISTER_PBUF_RING) of buffer group groupId. Returns 0 or -errno. */
static jint c_ioUringUnregisterBufRing(JNIEnv *env, jclass clazz, jint fd, jint groupId) {
    struct io_uring_buf_reg reg;
    memset(&reg, 0, sizeof reg);
    reg.bgid = (__u16) groupId;
    return syscall(__NR_io_uring_register, fd, IORING_UNREGISTER_PBUF_RING, &reg, 1) < 0 ? -errno : 0;
}

/*
 * io_uring_register(IORING_REGISTER_RING_FDS) of ring fd into the calling thread's table of registered rings, at any
 * free index (offset -1U): io_uring_enter(index, ..., IORING_ENTER_REGISTERED_RING) on that thread then skips looking
 * the descriptor up. Returns the index or -errno (-EINVAL before Linux 5.18, -EBUSY when the thread's 16 are taken).
 */
static jint c_ioUringRegisterRingFd(JNIEnv *env, jclass clazz, jint fd) {
    struct io_uring_rsrc_update update;
    memset(&update, 0, sizeof update);
    update.offset = -1U;
    update.data = (__u64) fd;
    long r = syscall(__NR_io_uring_register, fd, IORING_REGISTER_RING_FDS, &update, 1);
    if (r < 0) {
        return -errno;
    }
    return r == 1 ? (jint) update.offset : -EINVAL;
}

/* io_uring_register(IORING_UNREGISTER_RING_FDS) of the calling thread's registered ring at index. Returns 0 or -errno. */
static jint c_ioUringUnregisterRingFd(JNIEnv *env, jclass clazz, jint fd, jint index) {
    struct io_uring_rsrc_update update;
    memset(&update, 0, sizeof update);
    update.offset = (__u32) index;
    return syscall(__NR_io_uring_register, fd, IORING_UNREGISTER_RING_FDS, &update, 1) < 0 ? -errno : 0;
}

/* ---- mapping the rings ---- */

/* mmap(NULL, length, PROT_READ|PROT_WRITE, MAP_SHARED|MAP_POPULATE, fd, offset): the address or -errno. */
static jlong c_mmap(JNIEnv *env, jclass clazz, jint fd, jlong offset, jlong length) {
    void *p = mmap(NULL, (size_t) length, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, (off_t) offset);
    return p == MAP_FAILED ? -errno : (jlong) (intptr_t) p;
}

static jint c_munmap(JNIEnv *env, jclass clazz, jlong address, jlong length) {
    return munmap(PTR(address), (size_t) length) < 0 ? -errno : 0;
}

/* A direct ByteBuffer over capacity bytes at address (a mapped ring); NULL with an exception pending on failure. */
static jobject c_directBuffer(JNIEnv *env, jclass clazz, jlong address, jint capacity) {
    return (*env)->NewDirectByteBuffer(env, PTR(address), (jlong) capacity);
}

/* ---- descriptors ---- */

static jint c_eventfd(JNIEnv *env, jclass clazz, jint initialValue, jint flags) {
    int fd = eventfd((unsigned int) initialValue, flags);
    return fd < 0 ? -errno : fd;
}

static jint c_eventfdWrite(JNIEnv *env, jclass clazz, jint fd, jlong value) {
    uint64_t v = (uint64_t) value;
    return write(fd, &v, sizeof v) < 0 ? -errno : 0;
}

static jint c_socket(JNIEnv *env, jclass clazz, jint domain, jint type, jint protocol) {
    int fd = socket(domain, type, protocol);
    return fd < 0 ? -errno : fd;
}

static jint c_close(JNIEnv *env, jclass clazz, jint fd) {
    return close(fd) < 0 ? -errno : 0;
}

static jint c_accept4(JNIEnv *env, jclass clazz, jint fd, jint flags) {
    int accepted = accept4(fd, NULL, NULL, flags);
    return accepted < 0 ? -errno : accepted;
}

/* sendmsg(2) of the struct msghdr at msghdrAddress. Returns the bytes sent or -errno. */
static jint c_sendmsg(JNIEnv *env, jclass clazz, jint fd, jlong msghdrAddress, jint flags) {
    ssize_t n = sendmsg(fd, (const struct msghdr *) PTR(msghdrAddress), flags);
    return n < 0 ? -errno : (jint) n;
}

/*
 * recvmsg(2) into the struct msghdr at msghdrAddress. Returns the bytes received (with MSG_TRUNC in flags: the
 * datagram's real length, even when it was longer than the buffer) or -errno.
 */
static jint c_recvmsg(JNIEnv *env, jclass clazz, jint fd, jlong msghdrAddress, jint flags) {
    ssize_t n = recvmsg(fd, (struct msghdr *) PTR(msghdrAddress), flags);
    return n < 0 ? -errno : (jint) n;
}

/* ---- file regions and zero-copy forwarding: plain system calls on the loop thread (IoUringStreamSocket) ---- */

/* write(2) of length bytes at address (bytes received before a forwarding began, into its pipe). */
static jint c_write(JNIEnv *env, jclass clazz, jint fd, jlong address, jint length) {
    ssize_t n = write(fd, PTR(address), (size_t) length);
    return n < 0 ? -errno : (jint) n;
}

static const JNINativeMethod METHODS[] = {
    N("ioUringSetup", "(III[I)I", c_ioUringSetup),
    N("ioUringEnter", "(IIIIJ)I", c_ioUringEnter),
    N("ioUringProbe", "(I[B)I", c_ioUringProbe),
    N("ioUringRegisterBufRing", "(IJII)I", c_ioUringRegisterBufRing),
    N("ioUringUnregisterBufRing", "(II)I", c_ioUringUnregisterBufRing),
    N("ioUringRegisterRingFd", "(I)I", c_ioUringRegisterRingFd),
    N("ioUringUnregisterRingFd", "(II)I", c_ioUringUnregisterRingFd),
    N("mmap", "(IJJ)J", c_mmap),
    N("munmap", "(JJ)I", c_munmap),
    N("directBuffer", "(JI)Ljava/nio/ByteBuffer;", c_directBuffer),
    N("eventfd", "(II)I", c_eventfd),
    N("eventfdWrite", "(IJ)I", c_eventfdWrite),
    N("socket", "(III)I", c_socket),
    N("close", "(I)I", c_close),
    N("accept4", "(II)I", c_accept4),
    N("setsockoptBytes", "(III[BI)I", conduit_setsockopt_bytes),
    N("sendmsg", "(IJI)I", c_sendmsg),
    N("recvmsg", "(IJI)I", c_recvmsg),
    N("write", "(IJI)I", c_write),
    CONDUIT_LINUX_FILE_METHODS,
};

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved) {
    return conduit_on_load(vm, FACADE_CLASS, METHODS, (jint) (sizeof METHODS / sizeof METHODS[0]), CONSTANTS,
                           (jsize) (sizeof CONSTANTS / sizeof CONSTANTS[0]));
}
