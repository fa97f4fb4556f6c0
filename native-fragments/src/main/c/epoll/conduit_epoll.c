/*
 * Conduit epoll transport: the JNI veneer over Linux system calls.
 *
 * Rules (DESIGN.md, "Transports and native loading"):
 *  - about one function per system call, no policy: retries, buffer sizing and error mapping live in Java
 *    (io.conduit.epoll.Native, and io.conduit.transport.spi.unix.UnixErrors for the errno mapping);
 *  - every failure returns -errno; EAGAIN, EINTR and EINPROGRESS are returned like any other value;
 *  - memory is passed as native addresses (jlong) that Java obtained once per direct ByteBuffer through
 *    addressOf(ByteBuffer) (long-lived memory: iovec and mmsghdr arrays, bounce buffers, and the buffers of a
 *    gathering write, whose iovec Java fills), or, for the buffer of one read or write, as the direct ByteBuffer
 *    itself with the position and limit Java read from it: the address is resolved here, in the same call as the
 *    system call (one JNI transition, not two); struct layouts used by Java are published by
 *    constantNames()/constantValues();
 *  - JNI_OnLoad only looks up the facade class and registers the natives: the facade has no static
 *    initialiser, so no Java code runs and no class-initialisation lock is waited for.
 *
 * What every Unix transport shares (errno, iovec and socket address constants, bind/connect/getsockname and
 * the other identical natives, the address helpers, JNI_OnLoad's registration) is in ../unix/conduit_unix.c;
 * this file holds what only Linux has.
 *
 * Socket addresses cross the boundary as raw struct sockaddr bytes in Java byte arrays, encoded and decoded in
 * Java (io.conduit.transport.spi.unix.SockaddrCodec) with the offsets conduit_unix.c publishes; "address out"
 * arrays are described in conduit_unix.h.
 */
/*
 * 32-bit Linux (armv7): 64-bit off_t and time_t, so sendfile(2) offsets and timerfd(2) seconds are not cut to
 * 32 bits (glibc then calls sendfile64 and the time64 system calls). No effect on 64-bit systems.
 */
#if defined(__linux__) && !defined(__LP64__)
#define _FILE_OFFSET_BITS 64
#define _TIME_BITS 64
#endif
#define _GNU_SOURCE
#include "conduit_unix.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <sys/un.h>

#define FACADE_CLASS "io/conduit/epoll/Native"

/* ---- ABI facts and constants only Linux has (the shared ones are in conduit_unix.c) ---- */

static const struct conduit_constant CONSTANTS[] = {
    /* epoll(7) */
    K(EPOLLIN), K(EPOLLOUT), K(EPOLLRDHUP), K(EPOLLET), K(EPOLLERR), K(EPOLLHUP), K(EPOLLPRI), K(EPOLLONESHOT),
    K(EPOLL_CTL_ADD), K(EPOLL_CTL_MOD), K(EPOLL_CTL_DEL), K(EPOLL_CLOEXEC),
    KV("EPOLL_EVENT_SIZE", sizeof(struct epoll_event)),
    KV("EPOLL_EVENT_EVENTS_OFFSET", offsetof(struct epoll_event, events)),
    KV("EPOLL_EVENT_DATA_OFFSET", offsetof(struct epoll_event, data)),
    /* eventfd(2), timerfd_create(2) */
    K(EFD_CLOEXEC), K(EFD_NONBLOCK), K(TFD_CLOEXEC), K(TFD_NONBLOCK), K(CLOCK_MONOTONIC),
    /* struct msghdr / struct mmsghdr / struct cmsghdr, recvmsg(2), recvmmsg(2), cmsg(3) */
    CONDUIT_MSGHDR_CONSTANTS,
    KV("MMSGHDR_SIZE", sizeof(struct mmsghdr)),
    KV("MMSGHDR_HDR_OFFSET", offsetof(struct mmsghdr, msg_hdr)),
    KV("MMSGHDR_LEN_OFFSET", offsetof(struct mmsghdr, msg_len)),
    /* socket(2), shutdown(2), send(2), splice(2), open(2) */
    K(SOCK_NONBLOCK), K(SOCK_CLOEXEC),
    K(MSG_DONTWAIT), K(MSG_NOSIGNAL), K(MSG_TRUNC), K(MSG_CTRUNC), K(MSG_WAITFORONE), K(MSG_PEEK),
    K(SPLICE_F_MOVE), K(SPLICE_F_NONBLOCK), K(SPLICE_F_MORE),
    K(O_NONBLOCK), K(O_CLOEXEC), K(O_RDONLY), K(O_WRONLY), K(O_RDWR), K(O_CREAT),
    /* socket options: socket(7), tcp(7), ip(7), ipv6(7), unix(7) */
    K(SO_TYPE), K(SO_BUSY_POLL), K(SO_PEERCRED),
    K(TCP_CORK), K(TCP_QUICKACK), K(TCP_USER_TIMEOUT), K(TCP_NOTSENT_LOWAT),
    K(TCP_KEEPIDLE), K(TCP_KEEPINTVL), K(TCP_KEEPCNT), K(TCP_FASTOPEN), K(TCP_FASTOPEN_CONNECT),
    K(TCP_DEFER_ACCEPT),
    K(IP_TTL), K(IP_FREEBIND), K(IP_TRANSPARENT),
    /* IP_ORIGDSTADDR, multicast membership and the outgoing multicast interface: ip(7), ipv6(7) */
    CONDUIT_LINUX_UDP_CONSTANTS,
};

/* ---- helpers ---- */

/*
 * The address of byte `position` of a direct ByteBuffer, for a read or write of that buffer's [position, limit).
 * NULL when the buffer is not direct or the range is not one (Java passes only direct buffers with their own
 * position and limit; the callers return -EINVAL for NULL). GetDirectBufferAddress checks that the object is a
 * direct buffer (an IsInstanceOf inside the JVM): reading java.nio.Buffer's private "address" field instead
 * measured faster, but a heap buffer's field holds an array offset, so a mistaken heap buffer would be read as
 * an address; the check stays.
 */
static char *buffer_at(JNIEnv *env, jobject buffer, jint position, jint limit) {
    if (position < 0 || limit < position) {
        return NULL;
    }
    char *base = (*env)->GetDirectBufferAddress(env, buffer);
    return base == NULL ? NULL : base + position;
}

static jint int_pair_out(JNIEnv *env, jintArray out, int result, const int fds[2]) {
    if (result < 0) {
        return -errno;
    }
    (*env)->SetIntArrayRegion(env, out, 0, 2, (const jint *) fds);
    return 0;
}

/* ---- epoll(7) ---- */

static jint c_epollCreate(JNIEnv *env, jclass clazz) {
    int fd = epoll_create1(EPOLL_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

static jint c_epollCtl(JNIEnv *env, jclass clazz, jint epfd, jint op, jint fd, jint events, jlong data) {
    struct epoll_event event;
    memset(&event, 0, sizeof event);
    event.events = (uint32_t) events;
    event.data.u64 = (uint64_t) data;
    return epoll_ctl(epfd, op, fd, &event) < 0 ? -errno : 0;
}

static jint c_epollWait(JNIEnv *env, jclass clazz, jint epfd, jlong eventsAddress, jint maxEvents, jint timeoutMillis) {
    int n = epoll_wait(epfd, PTR(eventsAddress), maxEvents, timeoutMillis);
    return n < 0 ? -errno : n;
}

/* ---- eventfd(2), timerfd_create(2) ---- */

static jint c_eventfd(JNIEnv *env, jclass clazz, jint initialValue, jint flags) {
    int fd = eventfd((unsigned int) initialValue, flags);
    return fd < 0 ? -errno : fd;
}

static jint c_eventfdWrite(JNIEnv *env, jclass clazz, jint fd, jlong value) {
    uint64_t v = (uint64_t) value;
    ssize_t n = write(fd, &v, sizeof v);
    return n < 0 ? -errno : 0;
}

/* read(2) of the 8-byte counter of an eventfd or the expiration count of a timerfd */
static jlong c_readCounter(JNIEnv *env, jclass clazz, jint fd) {
    uint64_t v;
    ssize_t n = read(fd, &v, sizeof v);
    return n < 0 ? -errno : (jlong) v;
}

static jint c_timerfdCreate(JNIEnv *env, jclass clazz, jint clockId, jint flags) {
    int fd = timerfd_create(clockId, flags);
    return fd < 0 ? -errno : fd;
}

static jint c_timerfdSettime(JNIEnv *env, jclass clazz, jint fd, jlong seconds, jlong nanos,
                             jlong intervalSeconds, jlong intervalNanos) {
    struct itimerspec spec;
    memset(&spec, 0, sizeof spec);
    spec.it_value.tv_sec = (time_t) seconds;
    spec.it_value.tv_nsec = (long) nanos;
    spec.it_interval.tv_sec = (time_t) intervalSeconds;
    spec.it_interval.tv_nsec = (long) intervalNanos;
    return timerfd_settime(fd, 0, &spec, NULL) < 0 ? -errno : 0;
}

/* ---- sockets and descriptors ---- */

static jint c_socket(JNIEnv *env, jclass clazz, jint domain, jint type, jint protocol) {
    int fd = socket(domain, type, protocol);
    return fd < 0 ? -errno : fd;
}

static jint c_socketpair(JNIEnv *env, jclass clazz, jint domain, jint type, jint protocol, jintArray out) {
    int fds[2];
    return int_pair_out(env, out, socketpair(domain, type, protocol, fds), fds);
}

static jint c_accept4(JNIEnv *env, jclass clazz, jint fd, jbyteArray addressOut, jint flags) {
    struct sockaddr_storage sa;
    socklen_t length = sizeof sa;
    int accepted = accept4(fd, (struct sockaddr *) &sa, &length, flags);
    if (accepted < 0) {
        return -errno;
    }
    conduit_address_out(env, addressOut, &sa, length);
    return accepted;
}

/* open(2) of a path given as bytes without the terminating NUL */
static jint c_open(JNIEnv *env, jclass clazz, jbyteArray path, jint flags, jint mode) {
    char buf[PATH_MAX];
    jsize length = (*env)->GetArrayLength(env, path);
    if (length >= PATH_MAX) {
        return -ENAMETOOLONG;
    }
    (*env)->GetByteArrayRegion(env, path, 0, length, (jbyte *) buf);
    buf[length] = '\0';
    int fd = open(buf, flags, (mode_t) mode);
    return fd < 0 ? -errno : fd;
}

static jint c_close(JNIEnv *env, jclass clazz, jint fd) {
    return close(fd) < 0 ? -errno : 0;
}

static jint c_write(JNIEnv *env, jclass clazz, jint fd, jlong address, jint length) {
    ssize_t n = write(fd, PTR(address), (size_t) length);
    return n < 0 ? -errno : (jint) n;
}

/* read(2) into [position, limit) of a direct ByteBuffer */
static jint c_readBuffer(JNIEnv *env, jclass clazz, jint fd, jobject buffer, jint position, jint limit) {
    char *p = buffer_at(env, buffer, position, limit);
    if (p == NULL) {
        return -EINVAL;
    }
    ssize_t n = read(fd, p, (size_t) (limit - position));
    return n < 0 ? -errno : (jint) n;
}

/* write(2) of [position, limit) of a direct ByteBuffer */
static jint c_writeBuffer(JNIEnv *env, jclass clazz, jint fd, jobject buffer, jint position, jint limit) {
    char *p = buffer_at(env, buffer, position, limit);
    if (p == NULL) {
        return -EINVAL;
    }
    ssize_t n = write(fd, p, (size_t) (limit - position));
    return n < 0 ? -errno : (jint) n;
}

static jlong c_readv(JNIEnv *env, jclass clazz, jint fd, jlong iovAddress, jint iovCount) {
    ssize_t n = readv(fd, PTR(iovAddress), iovCount);
    return n < 0 ? -errno : (jlong) n;
}

static jint c_sendto(JNIEnv *env, jclass clazz, jint fd, jlong address, jint length, jint flags,
                     jbyteArray sockaddr, jint sockaddrLength) {
    struct sockaddr_storage sa;
    int rc = conduit_address_in(env, sockaddr, sockaddrLength, &sa);
    if (rc < 0) {
        return rc;
    }
    ssize_t n = sendto(fd, PTR(address), (size_t) length, flags, (struct sockaddr *) &sa, (socklen_t) sockaddrLength);
    return n < 0 ? -errno : (jint) n;
}

static jint c_recvfrom(JNIEnv *env, jclass clazz, jint fd, jlong address, jint length, jint flags,
                       jbyteArray addressOut) {
    struct sockaddr_storage sa;
    socklen_t saLength = sizeof sa;
    ssize_t n = recvfrom(fd, PTR(address), (size_t) length, flags, (struct sockaddr *) &sa, &saLength);
    if (n < 0) {
        return -errno;
    }
    conduit_address_out(env, addressOut, &sa, saLength);
    return (jint) n;
}

/* sendto(2) of [position, limit) of a direct ByteBuffer */
static jint c_sendtoBuffer(JNIEnv *env, jclass clazz, jint fd, jobject buffer, jint position, jint limit, jint flags,
                           jbyteArray sockaddr, jint sockaddrLength) {
    char *p = buffer_at(env, buffer, position, limit);
    if (p == NULL) {
        return -EINVAL;
    }
    return c_sendto(env, clazz, fd, (jlong) (uintptr_t) p, limit - position, flags, sockaddr, sockaddrLength);
}

/* recvfrom(2) into [position, limit) of a direct ByteBuffer; the sender goes to addressOut */
static jint c_recvfromBuffer(JNIEnv *env, jclass clazz, jint fd, jobject buffer, jint position, jint limit,
                             jint flags, jbyteArray addressOut) {
    char *p = buffer_at(env, buffer, position, limit);
    if (p == NULL) {
        return -EINVAL;
    }
    return c_recvfrom(env, clazz, fd, (jlong) (uintptr_t) p, limit - position, flags, addressOut);
}

static jint c_sendmmsg(JNIEnv *env, jclass clazz, jint fd, jlong msgvecAddress, jint vlen, jint flags) {
    int n = sendmmsg(fd, PTR(msgvecAddress), (unsigned int) vlen, flags);
    return n < 0 ? -errno : n;
}

static jint c_recvmmsg(JNIEnv *env, jclass clazz, jint fd, jlong msgvecAddress, jint vlen, jint flags) {
    int n = recvmmsg(fd, PTR(msgvecAddress), (unsigned int) vlen, flags, NULL);
    return n < 0 ? -errno : n;
}

static jint c_recvmsg(JNIEnv *env, jclass clazz, jint fd, jlong msghdrAddress, jint flags) {
    ssize_t n = recvmsg(fd, PTR(msghdrAddress), flags);
    return n < 0 ? -errno : (jint) n;
}

/*
 * getsockopt(TCP_INFO), tcp(7): copies struct tcp_info's fields into out, in this order: state, ca_state,
 * retransmits, rto, snd_mss, rcv_mss, unacked, lost, retrans, pmtu, rtt, rttvar, snd_ssthresh, snd_cwnd,
 * total_retrans (times in microseconds, as the kernel gives them).
 */
static jint c_getTcpInfo(JNIEnv *env, jclass clazz, jint fd, jlongArray out) {
    struct tcp_info info;
    socklen_t length = sizeof info;
    memset(&info, 0, sizeof info);
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &length) < 0) {
        return -errno;
    }
    jlong values[15] = {
        info.tcpi_state, info.tcpi_ca_state, info.tcpi_retransmits, info.tcpi_rto, info.tcpi_snd_mss,
        info.tcpi_rcv_mss, info.tcpi_unacked, info.tcpi_lost, info.tcpi_retrans, info.tcpi_pmtu, info.tcpi_rtt,
        info.tcpi_rttvar, info.tcpi_snd_ssthresh, info.tcpi_snd_cwnd, info.tcpi_total_retrans
    };
    (*env)->SetLongArrayRegion(env, out, 0, 15, values);
    return 0;
}

/* ---- registration ---- */

static const JNINativeMethod METHODS[] = {
    N("epollCreate", "()I", c_epollCreate),
    N("epollCtl", "(IIIIJ)I", c_epollCtl),
    N("epollWait", "(IJII)I", c_epollWait),
    N("eventfd", "(II)I", c_eventfd),
    N("eventfdWrite", "(IJ)I", c_eventfdWrite),
    N("eventfdRead", "(I)J", c_readCounter),
    N("timerfdCreate", "(II)I", c_timerfdCreate),
    N("timerfdSettime", "(IJJJJ)I", c_timerfdSettime),
    N("timerfdRead", "(I)J", c_readCounter),
    N("socket", "(III)I", c_socket),
    N("socketpair", "(III[I)I", c_socketpair),
    CONDUIT_LINUX_FILE_METHODS,
    N("accept4", "(I[BI)I", c_accept4),
    N("finishConnect", "(I)I", conduit_socket_error),
    N("open", "([BII)I", c_open),
    N("close", "(I)I", c_close),
    N("write", "(IJI)I", c_write),
    N("readBuffer", "(ILjava/nio/ByteBuffer;II)I", c_readBuffer),
    N("writeBuffer", "(ILjava/nio/ByteBuffer;II)I", c_writeBuffer),
    N("sendtoBuffer", "(ILjava/nio/ByteBuffer;III[BI)I", c_sendtoBuffer),
    N("recvfromBuffer", "(ILjava/nio/ByteBuffer;III[B)I", c_recvfromBuffer),
    N("readv", "(IJI)J", c_readv),
    N("sendto", "(IJII[BI)I", c_sendto),
    N("recvfrom", "(IJII[B)I", c_recvfrom),
    N("sendmmsg", "(IJII)I", c_sendmmsg),
    N("recvmmsg", "(IJII)I", c_recvmmsg),
    N("recvmsg", "(IJI)I", c_recvmsg),
    N("setsockoptBytes", "(III[BI)I", conduit_setsockopt_bytes),
    N("getTcpInfo", "(I[J)I", c_getTcpInfo),
};

/* Runs inside System.load/loadLibrary: registers the shared natives and these on io.conduit.epoll.Native. */
JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved) {
    return conduit_on_load(vm, FACADE_CLASS, METHODS, (jint) (sizeof METHODS / sizeof METHODS[0]), CONSTANTS,
                           (jsize) (sizeof CONSTANTS / sizeof CONSTANTS[0]));
}
