/*
 * Conduit kqueue transport: the JNI veneer over BSD/macOS system calls.
 *
 * Rules (DESIGN.md section 3, STYLE.md items 1-4), as for the epoll library:
 *  - about one function per system call, no policy: interest bookkeeping, timers, errno mapping and address
 *    encoding live in Java (io.conduit.kqueue.Native, KQueueIoHandler, Errors, Sockaddr);
 *  - every failure returns -errno; EAGAIN, EINTR and EINPROGRESS are returned like any other value;
 *  - memory is passed as native addresses (jlong) of direct ByteBuffers (addressOf); struct layouts that Java
 *    reads (struct kevent, struct iovec, socket addresses) are published by constantNames()/constantValues();
 *  - JNI_OnLoad only looks up the facade class and registers the natives (the facade has no static
 *    initialiser, so no Java code runs during loading).
 *
 * Builds:
 *  - macOS and FreeBSD: against the system's <sys/event.h> (fragments io.conduit.kqueue.<os>.<arch>);
 *  - Linux TEST build only: with -DCONDUIT_KQUEUE_EMULATION against native-fragments/kqueue-emulation
 *    (kqueue_emu.h + libconduit_kqueue_emu.a), which implements kqueue()/kevent() over epoll. Never shipped.
 *
 * The few differences between the three systems are #ifdef'd at the call they concern: socket creation
 * (macOS has no SOCK_NONBLOCK/SOCK_CLOEXEC, so fcntl follows socket()), accept (no accept4 on macOS), SIGPIPE
 * (SO_NOSIGPIPE where it exists, MSG_NOSIGNAL elsewhere) and peer credentials (SO_PEERCRED on Linux,
 * getpeereid on the BSDs).
 */
#if defined(__linux__)
#define _GNU_SOURCE
#endif
#include <jni.h>
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

#ifndef IOV_MAX
#define IOV_MAX 1024
#endif

#define FACADE_CLASS "io/conduit/kqueue/Native"
#define ADDRESS_OUT_SIZE ((jint) (sizeof(jint) + sizeof(struct sockaddr_storage)))
#define PTR(address) ((void *) (intptr_t) (address))

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
#ifndef SO_REUSEPORT
#define SO_REUSEPORT (-1)
#endif

/* ---- memory and diagnostics ---- */

static jlong c_addressOf(JNIEnv *env, jclass clazz, jobject buffer) {
    return (jlong) (intptr_t) (*env)->GetDirectBufferAddress(env, buffer);
}

static jstring c_strerror(JNIEnv *env, jclass clazz, jint err) {
    /* strerror(3) is thread-safe for known errno values on glibc, macOS and FreeBSD (static strings) */
    return (*env)->NewStringUTF(env, strerror(err));
}

/* ---- ABI facts and constants ---- */

struct constant {
    const char *name;
    jint value;
};

#define K(name) { #name, (jint) (name) }
#define KV(name, value) { name, (jint) (value) }
#define FIELD_SIZE(type, field) sizeof(((type *) 0)->field)

static const struct constant CONSTANTS[] = {
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
    /* errno(3) */
    K(EAGAIN), K(EWOULDBLOCK), K(EINTR), K(EINPROGRESS), K(EALREADY), K(EISCONN), K(ENOTCONN),
    K(ECONNREFUSED), K(ECONNRESET), K(ECONNABORTED), K(EPIPE), K(EMFILE), K(ENFILE), K(ENOBUFS), K(ENOMEM),
    K(EBADF), K(EINVAL), K(ETIMEDOUT), K(EHOSTUNREACH), K(ENETUNREACH), K(EADDRINUSE), K(EADDRNOTAVAIL),
    K(EACCES), K(EPERM), K(ENOENT), K(ENOTSOCK), K(EOPNOTSUPP), K(ENOPROTOOPT), K(EMSGSIZE),
    K(EAFNOSUPPORT), K(ENOSYS),
    /* struct iovec, writev(2) */
    K(IOV_MAX),
    KV("IOVEC_SIZE", sizeof(struct iovec)),
    KV("IOVEC_BASE_OFFSET", offsetof(struct iovec, iov_base)),
    KV("IOVEC_LEN_OFFSET", offsetof(struct iovec, iov_len)),
    KV("SIZEOF_POINTER", sizeof(void *)),
    KV("SIZEOF_SIZE_T", sizeof(size_t)),
    /* socket addresses: struct sockaddr_in, sockaddr_in6, sockaddr_un, sockaddr_storage */
    KV("SA_FAMILY_SIZE", sizeof(sa_family_t)),
    KV("SOCKADDR_STORAGE_SIZE", sizeof(struct sockaddr_storage)),
    KV("ADDRESS_OUT_SIZE", ADDRESS_OUT_SIZE),
    KV("SOCKADDR_IN_SIZE", sizeof(struct sockaddr_in)),
    KV("SOCKADDR_IN_FAMILY_OFFSET", offsetof(struct sockaddr_in, sin_family)),
    KV("SOCKADDR_IN_PORT_OFFSET", offsetof(struct sockaddr_in, sin_port)),
    KV("SOCKADDR_IN_ADDR_OFFSET", offsetof(struct sockaddr_in, sin_addr)),
    KV("SOCKADDR_IN6_SIZE", sizeof(struct sockaddr_in6)),
    KV("SOCKADDR_IN6_FAMILY_OFFSET", offsetof(struct sockaddr_in6, sin6_family)),
    KV("SOCKADDR_IN6_PORT_OFFSET", offsetof(struct sockaddr_in6, sin6_port)),
    KV("SOCKADDR_IN6_ADDR_OFFSET", offsetof(struct sockaddr_in6, sin6_addr)),
    KV("SOCKADDR_IN6_SCOPE_ID_OFFSET", offsetof(struct sockaddr_in6, sin6_scope_id)),
    KV("SOCKADDR_UN_SIZE", sizeof(struct sockaddr_un)),
    KV("SOCKADDR_UN_FAMILY_OFFSET", offsetof(struct sockaddr_un, sun_family)),
    KV("SOCKADDR_UN_PATH_OFFSET", offsetof(struct sockaddr_un, sun_path)),
    /* socket(2), shutdown(2) */
    K(AF_UNSPEC), K(AF_INET), K(AF_INET6), K(AF_UNIX), K(SOCK_STREAM), K(SOCK_DGRAM),
    K(IPPROTO_IP), K(IPPROTO_IPV6), K(IPPROTO_TCP), K(IPPROTO_UDP), K(SHUT_RD), K(SHUT_WR), K(SHUT_RDWR),
    /* socket options */
    K(SOL_SOCKET), K(SO_REUSEADDR), K(SO_REUSEPORT), K(SO_KEEPALIVE), K(SO_SNDBUF), K(SO_RCVBUF),
    K(SO_BROADCAST), K(SO_LINGER), K(SO_ERROR), K(SO_SNDLOWAT), K(SO_RCVLOWAT),
    K(SO_ACCEPTFILTER), K(HAS_SO_ACCEPTFILTER), K(TCP_NOPUSH), K(HAS_TCP_NOPUSH),
    K(TCP_NODELAY), K(IP_TOS), K(IP_MULTICAST_TTL), K(IP_MULTICAST_LOOP),
    K(IPV6_V6ONLY), K(IPV6_TCLASS), K(IPV6_MULTICAST_HOPS), K(IPV6_MULTICAST_LOOP),
};

#define CONSTANT_COUNT ((jsize) (sizeof CONSTANTS / sizeof CONSTANTS[0]))

static jobjectArray c_constantNames(JNIEnv *env, jclass clazz) {
    jclass string = (*env)->FindClass(env, "java/lang/String");
    if (string == NULL) {
        return NULL;
    }
    jobjectArray names = (*env)->NewObjectArray(env, CONSTANT_COUNT, string, NULL);
    if (names == NULL) {
        return NULL;
    }
    for (jsize i = 0; i < CONSTANT_COUNT; i++) {
        jstring name = (*env)->NewStringUTF(env, CONSTANTS[i].name);
        if (name == NULL) {
            return NULL;
        }
        (*env)->SetObjectArrayElement(env, names, i, name);
        (*env)->DeleteLocalRef(env, name);
    }
    return names;
}

static jintArray c_constantValues(JNIEnv *env, jclass clazz) {
    jint values[CONSTANT_COUNT];
    for (jsize i = 0; i < CONSTANT_COUNT; i++) {
        values[i] = CONSTANTS[i].value;
    }
    jintArray array = (*env)->NewIntArray(env, CONSTANT_COUNT);
    if (array != NULL) {
        (*env)->SetIntArrayRegion(env, array, 0, CONSTANT_COUNT, values);
    }
    return array;
}

/* ---- helpers for socket addresses ---- */

static int address_in(JNIEnv *env, jbyteArray bytes, jint length, struct sockaddr_storage *out) {
    if (bytes == NULL || length < 0 || length > (jint) sizeof *out || (*env)->GetArrayLength(env, bytes) < length) {
        return -EINVAL;
    }
    memset(out, 0, sizeof *out);
    (*env)->GetByteArrayRegion(env, bytes, 0, length, (jbyte *) out);
    return 0;
}

static void address_out(JNIEnv *env, jbyteArray out, const struct sockaddr_storage *address, socklen_t length) {
    jbyte buf[ADDRESS_OUT_SIZE];
    if (out == NULL || (*env)->GetArrayLength(env, out) < ADDRESS_OUT_SIZE) {
        return;
    }
    if (length > sizeof *address) {
        length = sizeof *address;
    }
    jint javaLength = (jint) length;
    memcpy(buf, &javaLength, sizeof javaLength);
    memcpy(buf + sizeof javaLength, address, length);
    (*env)->SetByteArrayRegion(env, out, 0, (jsize) (sizeof javaLength + length), buf);
}

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

static jint c_bind(JNIEnv *env, jclass clazz, jint fd, jbyteArray address, jint length) {
    struct sockaddr_storage sa;
    int rc = address_in(env, address, length, &sa);
    if (rc < 0) {
        return rc;
    }
    return bind(fd, (struct sockaddr *) &sa, (socklen_t) length) < 0 ? -errno : 0;
}

static jint c_listen(JNIEnv *env, jclass clazz, jint fd, jint backlog) {
    return listen(fd, backlog) < 0 ? -errno : 0;
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
    address_out(env, addressOut, &sa, length);
    return accepted;
}

static jint c_connect(JNIEnv *env, jclass clazz, jint fd, jbyteArray address, jint length) {
    struct sockaddr_storage sa;
    int rc = address_in(env, address, length, &sa);
    if (rc < 0) {
        return rc;
    }
    return connect(fd, (struct sockaddr *) &sa, (socklen_t) length) < 0 ? -errno : 0;
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

/* getsockopt(SO_ERROR): the pending socket error, returned as -errno (0 = none) */
static jint c_socketError(JNIEnv *env, jclass clazz, jint fd) {
    int err = 0;
    socklen_t length = sizeof err;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &length) < 0) {
        return -errno;
    }
    return -err;
}

static jint c_shutdown(JNIEnv *env, jclass clazz, jint fd, jint how) {
    return shutdown(fd, how) < 0 ? -errno : 0;
}

static jint c_close(JNIEnv *env, jclass clazz, jint fd) {
    return close(fd) < 0 ? -errno : 0;
}

static jint c_read(JNIEnv *env, jclass clazz, jint fd, jlong address, jint length) {
    ssize_t n = read(fd, PTR(address), (size_t) length);
    return n < 0 ? -errno : (jint) n;
}

static jlong c_writev(JNIEnv *env, jclass clazz, jint fd, jlong iovAddress, jint iovCount) {
    ssize_t n = writev(fd, PTR(iovAddress), iovCount);
    return n < 0 ? -errno : (jlong) n;
}

static jint c_send(JNIEnv *env, jclass clazz, jint fd, jlong address, jint length) {
    ssize_t n = send(fd, PTR(address), (size_t) length, SEND_FLAGS);
    return n < 0 ? -errno : (jint) n;
}

static jint c_sendto(JNIEnv *env, jclass clazz, jint fd, jlong address, jint length, jbyteArray sockaddr,
                     jint sockaddrLength) {
    struct sockaddr_storage sa;
    int rc = address_in(env, sockaddr, sockaddrLength, &sa);
    if (rc < 0) {
        return rc;
    }
    ssize_t n = sendto(fd, PTR(address), (size_t) length, SEND_FLAGS, (struct sockaddr *) &sa,
                       (socklen_t) sockaddrLength);
    return n < 0 ? -errno : (jint) n;
}

static jint c_recvfrom(JNIEnv *env, jclass clazz, jint fd, jlong address, jint length, jbyteArray addressOut) {
    struct sockaddr_storage sa;
    socklen_t saLength = sizeof sa;
    memset(&sa, 0, sizeof sa);
    ssize_t n = recvfrom(fd, PTR(address), (size_t) length, 0, (struct sockaddr *) &sa, &saLength);
    if (n < 0) {
        return -errno;
    }
    address_out(env, addressOut, &sa, saLength);
    return (jint) n;
}

static jint c_getsockname(JNIEnv *env, jclass clazz, jint fd, jbyteArray addressOut) {
    struct sockaddr_storage sa;
    socklen_t length = sizeof sa;
    if (getsockname(fd, (struct sockaddr *) &sa, &length) < 0) {
        return -errno;
    }
    address_out(env, addressOut, &sa, length);
    return 0;
}

static jint c_getpeername(JNIEnv *env, jclass clazz, jint fd, jbyteArray addressOut) {
    struct sockaddr_storage sa;
    socklen_t length = sizeof sa;
    if (getpeername(fd, (struct sockaddr *) &sa, &length) < 0) {
        return -errno;
    }
    address_out(env, addressOut, &sa, length);
    return 0;
}

static jint c_setsockoptInt(JNIEnv *env, jclass clazz, jint fd, jint level, jint optname, jint value) {
    int v = value;
    return setsockopt(fd, level, optname, &v, sizeof v) < 0 ? -errno : 0;
}

static jint c_getsockoptInt(JNIEnv *env, jclass clazz, jint fd, jint level, jint optname, jintArray out) {
    int v = 0;
    socklen_t length = sizeof v;
    if (getsockopt(fd, level, optname, &v, &length) < 0) {
        return -errno;
    }
    jint value = v;
    (*env)->SetIntArrayRegion(env, out, 0, 1, &value);
    return 0;
}

static jint c_setsockoptLinger(JNIEnv *env, jclass clazz, jint fd, jint onoff, jint seconds) {
    struct linger l;
    l.l_onoff = onoff;
    l.l_linger = seconds;
    return setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l) < 0 ? -errno : 0;
}

static jint c_getsockoptLinger(JNIEnv *env, jclass clazz, jint fd, jintArray out) {
    struct linger l;
    socklen_t length = sizeof l;
    memset(&l, 0, sizeof l);
    if (getsockopt(fd, SOL_SOCKET, SO_LINGER, &l, &length) < 0) {
        return -errno;
    }
    jint values[2] = { l.l_onoff, l.l_linger };
    (*env)->SetIntArrayRegion(env, out, 0, 2, values);
    return 0;
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

/* Peer credentials of a Unix-domain socket: out = { pid (-1 when unknown), uid, gid }. */
static jint c_getPeerCredentials(JNIEnv *env, jclass clazz, jint fd, jintArray out) {
    jint values[3];
#if defined(__linux__)
    struct ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) < 0) {
        return -errno;
    }
    values[0] = (jint) credentials.pid;
    values[1] = (jint) credentials.uid;
    values[2] = (jint) credentials.gid;
#else
    uid_t uid;
    gid_t gid;
    if (getpeereid(fd, &uid, &gid) < 0) {
        return -errno;
    }
    values[0] = -1;
#if defined(LOCAL_PEERPID)
    pid_t pid;
    socklen_t length = sizeof pid;
    if (getsockopt(fd, SOL_LOCAL, LOCAL_PEERPID, &pid, &length) == 0) {
        values[0] = (jint) pid;
    }
#endif
    values[1] = (jint) uid;
    values[2] = (jint) gid;
#endif
    (*env)->SetIntArrayRegion(env, out, 0, 3, values);
    return 0;
}

/* ---- registration ---- */

#define N(name, signature, function) { (char *) name, (char *) signature, (void *) function }

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

static const JNINativeMethod METHODS[] = {
    N("addressOf", "(Ljava/nio/ByteBuffer;)J", c_addressOf),
    N("strerror", "(I)Ljava/lang/String;", c_strerror),
    N("constantNames", "()[Ljava/lang/String;", c_constantNames),
    N("constantValues", "()[I", c_constantValues),
    N("kqueue", "()I", c_kqueue),
    N("keventChange", "(IJIIIJJ)I", c_keventChange),
    N("keventWait", "(IJIJIJ)I", c_keventWait),
    N("socket", "(III)I", c_socket),
    N("bind", "(I[BI)I", c_bind),
    N("listen", "(II)I", c_listen),
    N("accept", "(I[B)I", c_accept),
    N("connect", "(I[BI)I", c_connect),
    N("disconnect", "(I)I", c_disconnect),
    N("socketError", "(I)I", c_socketError),
    N("shutdown", "(II)I", c_shutdown),
    N("close", "(I)I", c_close),
    N("read", "(IJI)I", c_read),
    N("writev", "(IJI)J", c_writev),
    N("send", "(IJI)I", c_send),
    N("sendto", "(IJI[BI)I", c_sendto),
    N("recvfrom", "(IJI[B)I", c_recvfrom),
    N("getsockname", "(I[B)I", c_getsockname),
    N("getpeername", "(I[B)I", c_getpeername),
    N("setsockoptInt", "(IIII)I", c_setsockoptInt),
    N("getsockoptInt", "(III[I)I", c_getsockoptInt),
    N("setsockoptLinger", "(III)I", c_setsockoptLinger),
    N("getsockoptLinger", "(I[I)I", c_getsockoptLinger),
    N("setAcceptFilter", "(I[B)I", c_setAcceptFilter),
    N("getPeerCredentials", "(I[I)I", c_getPeerCredentials),
    N("multicastMembership", "(IZ[B[BI)I", c_multicastMembership),
};

/*
 * Runs inside System.load/loadLibrary. FindClass uses the class loader of the class that asked for the library
 * (io.conduit.kqueue.KQueue) and initialises the facade, which has no static initialiser; RegisterNatives then
 * binds the methods above. No Java code runs and no class-initialisation lock is waited for.
 */
JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved) {
    JNIEnv *env;
    if ((*vm)->GetEnv(vm, (void **) &env, JNI_VERSION_1_8) != JNI_OK) {
        return JNI_ERR;
    }
    jclass facade = (*env)->FindClass(env, FACADE_CLASS);
    if (facade == NULL) {
        return JNI_ERR;
    }
    jint count = (jint) (sizeof METHODS / sizeof METHODS[0]);
    if ((*env)->RegisterNatives(env, facade, METHODS, count) != 0) {
        return JNI_ERR;
    }
    (*env)->DeleteLocalRef(env, facade);
    return JNI_VERSION_1_8;
}
