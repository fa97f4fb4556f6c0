/*
 * Conduit kqueue transport: the JNI veneer over BSD/macOS system calls.
 *
 * Rules (DESIGN.md, "Transports and native loading"), as for the epoll library:
 *  - about one function per system call, no policy: interest bookkeeping, timers, errno mapping and address
 *    encoding live in Java (io.conduit.kqueue.Native, KQueueIoHandler; io.conduit.transport.spi.unix);
 *  - every failure returns -errno; EAGAIN, EINTR and EINPROGRESS are returned like any other value;
 *  - memory is passed as native addresses (jlong) of direct ByteBuffers (addressOf); struct layouts that Java
 *    reads (struct kevent, struct iovec, socket addresses) are published by constantNames()/constantValues();
 *  - JNI_OnLoad only looks up the facade class and registers the natives (the facade has no static
 *    initialiser, so no Java code runs during loading).
 *
 * What every Unix transport shares (errno, iovec and socket address constants, bind/connect/getsockname and
 * the other identical natives, peer credentials, the address helpers, JNI_OnLoad's registration) is in
 * ../unix/conduit_unix.c, compiled into this library too; this file holds what kqueue systems need.
 *
 * Builds:
 *  - macOS and FreeBSD: against the system's <sys/event.h> (fragments io.conduit.kqueue.<os>.<arch>);
 *  - Linux TEST build only: with -DCONDUIT_KQUEUE_EMULATION against native-fragments/kqueue-emulation
 *    (kqueue_emu.h + libconduit_kqueue_emu.a), which implements kqueue()/kevent() over epoll. Never shipped.
 *
 * The few differences between the three systems are #ifdef'd at the call they concern: socket creation
 * (macOS has no SOCK_NONBLOCK/SOCK_CLOEXEC, so fcntl follows socket()), accept (no accept4 on macOS), SIGPIPE
 * (SO_NOSIGPIPE where it exists, MSG_NOSIGNAL elsewhere); peer credentials differ in conduit_unix.c.
 * Datagrams (UDP and AF_UNIX/SOCK_DGRAM alike) use only POSIX calls: sendto/send and recvmsg, whose msg_flags
 * report MSG_TRUNC on all three systems. The BSDs have no abstract Unix names (sun_path[0] == '\0' is no name
 * there); the Java side rejects them before any call, also in the Linux test build.
 *
 * Compiled here (Linux CI) only as the emulation test build; the macOS and FreeBSD builds (profiles
 * kqueue-fragments-macos / kqueue-fragments-freebsd) have not been compiled on those systems from this tree.
 */
#if defined(__linux__)
#define _GNU_SOURCE
#endif
#include "conduit_unix.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/un.h>

#ifdef CONDUIT_KQUEUE_EMULATION
/* Linux test build: close(fd) goes through emu_close so a closed kqueue frees its emulation state at once. */
#define KQUEUE_EMU_WRAP_CLOSE
#include "kqueue_emu.h"
#define CONDUIT_IS_EMULATION 1
#else
#include <sys/event.h>
#include <sys/time.h>
#define CONDUIT_IS_EMULATION 0
#endif

#define FACADE_CLASS "io/conduit/kqueue/Native"

#ifdef MSG_NOSIGNAL
#define SEND_FLAGS MSG_NOSIGNAL
#else
#define SEND_FLAGS 0 /* macOS: SO_NOSIGPIPE is set on every socket instead */
#endif

/* Options that exist only on some systems are published as -1 when missing; Java treats -1 as unsupported. */
#ifdef SO_ACCEPTFILTER
#define HAS_SO_ACCEPTFILTER 1
#else
#define SO_ACCEPTFILTER (-1)
#define HAS_SO_ACCEPTFILTER 0
#endif
#ifdef TCP_NOPUSH
#define HAS_TCP_NOPUSH 1
#else
#define TCP_NOPUSH (-1)
#define HAS_TCP_NOPUSH 0
#endif

/* ---- ABI facts and constants only kqueue systems have (the shared ones are in conduit_unix.c) ---- */

#define FIELD_SIZE(type, field) sizeof(((type *) 0)->field)

static const struct conduit_constant CONSTANTS[] = {
    KV("EMULATION", CONDUIT_IS_EMULATION),
    /* kqueue(2): struct kevent and its flags */
    KV("KEVENT_SIZE", sizeof(struct kevent)),
    KV("KEVENT_IDENT_OFFSET", offsetof(struct kevent, ident)),
    KV("KEVENT_IDENT_SIZE", FIELD_SIZE(struct kevent, ident)),
    KV("KEVENT_FILTER_OFFSET", offsetof(struct kevent, filter)),
    KV("KEVENT_FILTER_SIZE", FIELD_SIZE(struct kevent, filter)),
    KV("KEVENT_FLAGS_OFFSET", offsetof(struct kevent, flags)),
    KV("KEVENT_FLAGS_SIZE", FIELD_SIZE(struct kevent, flags)),
    KV("KEVENT_FFLAGS_OFFSET", offsetof(struct kevent, fflags)),
    KV("KEVENT_DATA_OFFSET", offsetof(struct kevent, data)),
    KV("KEVENT_DATA_SIZE", FIELD_SIZE(struct kevent, data)),
    KV("KEVENT_UDATA_OFFSET", offsetof(struct kevent, udata)),
    K(EVFILT_READ), K(EVFILT_WRITE), K(EVFILT_TIMER), K(EVFILT_USER),
    K(EV_ADD), K(EV_DELETE), K(EV_ENABLE), K(EV_DISABLE), K(EV_ONESHOT), K(EV_CLEAR), K(EV_RECEIPT),
    K(EV_ERROR), K(EV_EOF),
    K(NOTE_TRIGGER), K(NOTE_FFNOP), K(NOTE_NSECONDS),
    /* recvmsg(2) msg_flags */
    K(MSG_TRUNC),
    /* socket options */
    K(SO_SNDLOWAT), K(SO_ACCEPTFILTER), K(HAS_SO_ACCEPTFILTER), K(TCP_NOPUSH), K(HAS_TCP_NOPUSH),
    K(IPV6_MULTICAST_HOPS), K(IPV6_MULTICAST_LOOP),
};

/* ---- helpers ---- */

/* Non-blocking, close-on-exec, and (where the system has it) no SIGPIPE: the state every socket needs. */
static int prepare_socket(int fd) {
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0 || fcntl(fd, F_SETFD, FD_CLOEXEC) < 0) {
        return -errno;
    }
#ifdef SO_NOSIGPIPE
    int one = 1;
    if (setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, sizeof one) < 0) {
        return -errno;
    }
#endif
    return 0;
}

/* ---- kqueue(2) ---- */

static jint c_kqueue(JNIEnv *env, jclass clazz) {
    int fd = kqueue();
    if (fd < 0) {
        return -errno;
    }
#ifndef CONDUIT_KQUEUE_EMULATION
    fcntl(fd, F_SETFD, FD_CLOEXEC); /* kqueues are not inherited by fork(2) anyway; keep exec(2) clean too */
#endif
    return fd;
}

/* kevent(2) with one change and no event list: EV_ADD/EV_DELETE/EV_ENABLE/EV_DISABLE/NOTE_TRIGGER. */
static jint c_keventChange(JNIEnv *env, jclass clazz, jint kq, jlong ident, jint filter, jint flags, jint fflags,
                           jlong data, jlong udata) {
    struct kevent change;
    EV_SET(&change, (uintptr_t) ident, (short) filter, (unsigned short) flags, (unsigned int) fflags,
           (intptr_t) data, PTR(udata));
    return kevent(kq, &change, 1, NULL, 0, NULL) < 0 ? -errno : 0;
}

/*
 * kevent(2) applying nchanges structs at changesAddress and waiting for up to maxEvents into eventsAddress.
 * timeoutNanos < 0 waits forever (NULL timeout), 0 polls.
 */
static jint c_keventWait(JNIEnv *env, jclass clazz, jint kq, jlong changesAddress, jint nchanges,
                         jlong eventsAddress, jint maxEvents, jlong timeoutNanos) {
    struct timespec timeout;
    struct timespec *t = NULL;
    if (timeoutNanos >= 0) {
        timeout.tv_sec = (time_t) (timeoutNanos / 1000000000LL);
        timeout.tv_nsec = (long) (timeoutNanos % 1000000000LL);
        t = &timeout;
    }
    int n = kevent(kq, PTR(changesAddress), nchanges, PTR(eventsAddress), maxEvents, t);
    return n < 0 ? -errno : n;
}

/* ---- sockets and descriptors ---- */

static jint c_socket(JNIEnv *env, jclass clazz, jint domain, jint type, jint protocol) {
    int fd = socket(domain, type, protocol);
    if (fd < 0) {
        return -errno;
    }
    int rc = prepare_socket(fd);
    if (rc < 0) {
        close(fd);
        return rc;
    }
    return fd;
}

/* accept(2), then the accepted socket is made non-blocking and close-on-exec (no accept4 on macOS). */
static jint c_accept(JNIEnv *env, jclass clazz, jint fd, jbyteArray addressOut) {
    struct sockaddr_storage sa;
    socklen_t length = sizeof sa;
    int accepted = accept(fd, (struct sockaddr *) &sa, &length);
    if (accepted < 0) {
        return -errno;
    }
    int rc = prepare_socket(accepted);
    if (rc < 0) {
        close(accepted);
        return rc;
    }
    conduit_address_out(env, addressOut, &sa, length);
    return accepted;
}

/* connect(2) to AF_UNSPEC: dissolves a datagram socket's association. */
static jint c_disconnect(JNIEnv *env, jclass clazz, jint fd) {
    struct sockaddr_storage sa;
    memset(&sa, 0, sizeof sa);
    sa.ss_family = AF_UNSPEC;
    if (connect(fd, (struct sockaddr *) &sa, sizeof sa) < 0 && errno != EAFNOSUPPORT) {
        return -errno; /* the BSDs answer EAFNOSUPPORT but dissolve the association anyway */
    }
    return 0;
}

static jint c_close(JNIEnv *env, jclass clazz, jint fd) {
    return close(fd) < 0 ? -errno : 0;
}

static jint c_send(JNIEnv *env, jclass clazz, jint fd, jlong address, jint length) {
    ssize_t n = send(fd, PTR(address), (size_t) length, SEND_FLAGS);
    return n < 0 ? -errno : (jint) n;
}

static jint c_sendto(JNIEnv *env, jclass clazz, jint fd, jlong address, jint length, jbyteArray sockaddr,
                     jint sockaddrLength) {
    struct sockaddr_storage sa;
    int rc = conduit_address_in(env, sockaddr, sockaddrLength, &sa);
    if (rc < 0) {
        return rc;
    }
    ssize_t n = sendto(fd, PTR(address), (size_t) length, SEND_FLAGS, (struct sockaddr *) &sa,
                       (socklen_t) sockaddrLength);
    return n < 0 ? -errno : (jint) n;
}

/*
 * recvmsg(2) of one datagram (UDP or AF_UNIX/SOCK_DGRAM) into the length bytes at address: the sender goes to
 * addressOut (an unnamed Unix sender may come back with length 0, or as a sockaddr_un with an empty sun_path on the
 * BSDs), msg_flags to flagsOut[0] (MSG_TRUNC: the datagram was longer than length and was cut). recvmsg rather
 * than recvfrom because msg_flags reports truncation on Linux, macOS and FreeBSD alike, whereas MSG_TRUNC as an
 * input flag of recv(2) (return the real length) is not portable. Returns the bytes stored (0 = an empty datagram)
 * or -errno.
 */
static jint c_recvmsg(JNIEnv *env, jclass clazz, jint fd, jlong address, jint length, jbyteArray addressOut,
                      jintArray flagsOut) {
    struct sockaddr_storage sa;
    struct iovec iov;
    struct msghdr msg;
    memset(&sa, 0, sizeof sa);
    memset(&msg, 0, sizeof msg);
    iov.iov_base = PTR(address);
    iov.iov_len = (size_t) length;
    msg.msg_name = &sa;
    msg.msg_namelen = sizeof sa;
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    ssize_t n = recvmsg(fd, &msg, 0);
    if (n < 0) {
        return -errno;
    }
    conduit_address_out(env, addressOut, &sa, msg.msg_namelen);
    jint flags = (jint) msg.msg_flags;
    (*env)->SetIntArrayRegion(env, flagsOut, 0, 1, &flags);
    return (jint) n;
}

/* setsockopt(SO_ACCEPTFILTER) with struct accept_filter_arg { af_name; af_arg } (FreeBSD accf(9)). */
static jint c_setAcceptFilter(JNIEnv *env, jclass clazz, jint fd, jbyteArray name) {
#if HAS_SO_ACCEPTFILTER
    struct accept_filter_arg arg;
    memset(&arg, 0, sizeof arg);
    if (name == NULL) {
        return setsockopt(fd, SOL_SOCKET, SO_ACCEPTFILTER, NULL, 0) < 0 ? -errno : 0;
    }
    jsize length = (*env)->GetArrayLength(env, name);
    if (length >= (jsize) sizeof arg.af_name) {
        return -EINVAL;
    }
    (*env)->GetByteArrayRegion(env, name, 0, length, (jbyte *) arg.af_name);
    return setsockopt(fd, SOL_SOCKET, SO_ACCEPTFILTER, &arg, sizeof arg) < 0 ? -errno : 0;
#else
    return -ENOPROTOOPT;
#endif
}

/*
 * Multicast membership (ip(7) IP_ADD_MEMBERSHIP/IP_DROP_MEMBERSHIP with struct ip_mreq { imr_multiaddr;
 * imr_interface }, ipv6(7) IPV6_JOIN_GROUP/IPV6_LEAVE_GROUP with struct ipv6_mreq { ipv6mr_multiaddr;
 * ipv6mr_interface }). group: 4 or 16 address bytes; ifaddr: the interface's IPv4 address (4 bytes) or NULL for
 * any; ifindex: the interface index for IPv6.
 */
static jint c_multicastMembership(JNIEnv *env, jclass clazz, jint fd, jboolean join, jbyteArray group,
        jbyteArray ifaddr, jint ifindex) {
    jsize length = (*env)->GetArrayLength(env, group);
    if (length == 4) {
        struct ip_mreq mreq;
        memset(&mreq, 0, sizeof mreq);
        (*env)->GetByteArrayRegion(env, group, 0, 4, (jbyte *) &mreq.imr_multiaddr);
        if (ifaddr != NULL) {
            (*env)->GetByteArrayRegion(env, ifaddr, 0, 4, (jbyte *) &mreq.imr_interface);
        } else {
            mreq.imr_interface.s_addr = htonl(INADDR_ANY);
        }
        return setsockopt(fd, IPPROTO_IP, join ? IP_ADD_MEMBERSHIP : IP_DROP_MEMBERSHIP, &mreq, sizeof mreq) < 0
                ? -errno : 0;
    }
    if (length == 16) {
        struct ipv6_mreq mreq;
        memset(&mreq, 0, sizeof mreq);
        (*env)->GetByteArrayRegion(env, group, 0, 16, (jbyte *) &mreq.ipv6mr_multiaddr);
        mreq.ipv6mr_interface = (unsigned int) ifindex;
        return setsockopt(fd, IPPROTO_IPV6, join ? IPV6_JOIN_GROUP : IPV6_LEAVE_GROUP, &mreq, sizeof mreq) < 0
                ? -errno : 0;
    }
    return -EINVAL;
}

/* ---- registration ---- */

static const JNINativeMethod METHODS[] = {
    N("kqueue", "()I", c_kqueue),
    N("keventChange", "(IJIIIJJ)I", c_keventChange),
    N("keventWait", "(IJIJIJ)I", c_keventWait),
    N("socket", "(III)I", c_socket),
    N("accept", "(I[B)I", c_accept),
    N("disconnect", "(I)I", c_disconnect),
    N("socketError", "(I)I", conduit_socket_error),
    N("close", "(I)I", c_close),
    N("send", "(IJI)I", c_send),
    N("sendto", "(IJI[BI)I", c_sendto),
    N("recvmsg", "(IJI[B[I)I", c_recvmsg),
    N("setAcceptFilter", "(I[B)I", c_setAcceptFilter),
    N("multicastMembership", "(IZ[B[BI)I", c_multicastMembership),
};

/* Runs inside System.load/loadLibrary: registers the shared natives and these on io.conduit.kqueue.Native. */
JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved) {
    return conduit_on_load(vm, FACADE_CLASS, METHODS, (jint) (sizeof METHODS / sizeof METHODS[0]), CONSTANTS,
                           (jsize) (sizeof CONSTANTS / sizeof CONSTANTS[0]));
}
