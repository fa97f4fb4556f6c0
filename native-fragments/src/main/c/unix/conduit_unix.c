/*
 * Conduit: JNI code shared by the epoll and kqueue libraries (see conduit_unix.h). Compiled into each library;
 * the few differences between Linux, macOS and FreeBSD are #ifdef'd at the call they concern.
 */
/*
 * 32-bit Linux (armv7): 64-bit off_t and time_t, so sendfile(2) offsets and timerfd(2) seconds are not cut to
 * 32 bits (glibc then calls sendfile64 and the time64 system calls). No effect on 64-bit systems.
 */
#if defined(__linux__) && !defined(__LP64__)
#define _FILE_OFFSET_BITS 64
#define _TIME_BITS 64
#endif
#if defined(__linux__)
#define _GNU_SOURCE
#endif
#include "conduit_unix.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/uio.h>
#include <sys/un.h>
#if defined(__linux__)
#include <fcntl.h>
#include <linux/filter.h>
#include <sys/sendfile.h>
#endif

#ifndef SO_REUSEPORT
#define SO_REUSEPORT (-1) /* published as -1: Java treats it as unsupported */
#endif

/* ---- constants every Unix transport publishes ---- */

static const struct conduit_constant UNIX_CONSTANTS[] = {
    /* errno(3) */
    K(EAGAIN), K(EWOULDBLOCK), K(EINTR), K(EINPROGRESS), K(EALREADY), K(EISCONN), K(ENOTCONN),
    K(ECONNREFUSED), K(ECONNRESET), K(ECONNABORTED), K(EPIPE), K(EMFILE), K(ENFILE), K(ENOBUFS), K(ENOMEM),
    K(EBADF), K(EINVAL), K(ETIMEDOUT), K(EHOSTUNREACH), K(ENETUNREACH), K(EADDRINUSE), K(EADDRNOTAVAIL),
    K(EACCES), K(EPERM), K(ENOENT), K(ENOTSOCK), K(EOPNOTSUPP), K(ENOPROTOOPT), K(EMSGSIZE), K(ESHUTDOWN),
    K(EAFNOSUPPORT), K(ENOSYS), K(EEXIST), K(ENAMETOOLONG),
    /* struct iovec, readv(2), writev(2) */
    K(IOV_MAX),
    KV("IOVEC_SIZE", sizeof(struct iovec)),
    KV("IOVEC_BASE_OFFSET", offsetof(struct iovec, iov_base)),
    KV("IOVEC_LEN_OFFSET", offsetof(struct iovec, iov_len)),
    KV("SIZEOF_POINTER", sizeof(void *)),
    KV("SIZEOF_SIZE_T", sizeof(size_t)),
    KV("SIZEOF_SOCKLEN_T", sizeof(socklen_t)),
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
    KV("SOCKADDR_IN6_FLOWINFO_OFFSET", offsetof(struct sockaddr_in6, sin6_flowinfo)),
    KV("SOCKADDR_IN6_ADDR_OFFSET", offsetof(struct sockaddr_in6, sin6_addr)),
    KV("SOCKADDR_IN6_SCOPE_ID_OFFSET", offsetof(struct sockaddr_in6, sin6_scope_id)),
    KV("SOCKADDR_UN_SIZE", sizeof(struct sockaddr_un)),
    KV("SOCKADDR_UN_FAMILY_OFFSET", offsetof(struct sockaddr_un, sun_family)),
    KV("SOCKADDR_UN_PATH_OFFSET", offsetof(struct sockaddr_un, sun_path)),
    /* socket(2), shutdown(2) */
    K(AF_UNSPEC), K(AF_INET), K(AF_INET6), K(AF_UNIX), K(SOCK_STREAM), K(SOCK_DGRAM),
    K(IPPROTO_IP), K(IPPROTO_IPV6), K(IPPROTO_TCP), K(IPPROTO_UDP), K(SHUT_RD), K(SHUT_WR), K(SHUT_RDWR),
    /* socket options every system has: socket(7), tcp(7), ip(7), ipv6(7) */
    K(SOL_SOCKET), K(SO_REUSEADDR), K(SO_REUSEPORT), K(SO_KEEPALIVE), K(SO_SNDBUF), K(SO_RCVBUF),
    K(SO_BROADCAST), K(SO_LINGER), K(SO_ERROR), K(SO_RCVLOWAT),
    K(TCP_NODELAY), K(IP_TOS), K(IP_MULTICAST_TTL), K(IP_MULTICAST_LOOP), K(IPV6_V6ONLY), K(IPV6_TCLASS),
};

#define UNIX_CONSTANT_COUNT ((jsize) (sizeof UNIX_CONSTANTS / sizeof UNIX_CONSTANTS[0]))

/* The library's own constants, set once by conduit_on_load before any native can be called. */
static const struct conduit_constant *own_constants;
static jsize own_constant_count;

static const struct conduit_constant *constant_at(jsize i) {
    return i < UNIX_CONSTANT_COUNT ? &UNIX_CONSTANTS[i] : &own_constants[i - UNIX_CONSTANT_COUNT];
}

static jobjectArray c_constantNames(JNIEnv *env, jclass clazz) {
    jsize count = UNIX_CONSTANT_COUNT + own_constant_count;
    jclass string = (*env)->FindClass(env, "java/lang/String");
    if (string == NULL) {
        return NULL;
    }
    jobjectArray names = (*env)->NewObjectArray(env, count, string, NULL);
    if (names == NULL) {
        return NULL;
    }
    for (jsize i = 0; i < count; i++) {
        jstring name = (*env)->NewStringUTF(env, constant_at(i)->name);
        if (name == NULL) {
            return NULL;
        }
        (*env)->SetObjectArrayElement(env, names, i, name);
        (*env)->DeleteLocalRef(env, name);
    }
    return names;
}

static jintArray c_constantValues(JNIEnv *env, jclass clazz) {
    jsize count = UNIX_CONSTANT_COUNT + own_constant_count;
    jintArray array = (*env)->NewIntArray(env, count);
    if (array == NULL) {
        return NULL;
    }
    for (jsize i = 0; i < count; i++) {
        (*env)->SetIntArrayRegion(env, array, i, 1, &constant_at(i)->value);
    }
    return array;
}

/* ---- memory and diagnostics ---- */

static jlong c_addressOf(JNIEnv *env, jclass clazz, jobject buffer) {
    return (jlong) (uintptr_t) (*env)->GetDirectBufferAddress(env, buffer);
}

static jstring c_strerror(JNIEnv *env, jclass clazz, jint err) {
    char buf[256];
#if defined(__GLIBC__) && defined(_GNU_SOURCE)
    const char *text = strerror_r(err, buf, sizeof buf); /* GNU variant: returns the text */
#else
    const char *text = strerror_r(err, buf, sizeof buf) == 0 ? buf : "Unknown error"; /* XSI variant */
#endif
    return (*env)->NewStringUTF(env, text);
}

/* ---- socket addresses ---- */

int conduit_address_in(JNIEnv *env, jbyteArray bytes, jint length, struct sockaddr_storage *out) {
    if (bytes == NULL || length < 0 || length > (jint) sizeof *out || (*env)->GetArrayLength(env, bytes) < length) {
        return -EINVAL;
    }
    memset(out, 0, sizeof *out);
    (*env)->GetByteArrayRegion(env, bytes, 0, length, (jbyte *) out);
    return 0;
}

void conduit_address_out(JNIEnv *env, jbyteArray out, const struct sockaddr_storage *address, socklen_t length) {
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

/* ---- sockets ---- */

static jint c_bind(JNIEnv *env, jclass clazz, jint fd, jbyteArray address, jint length) {
    struct sockaddr_storage sa;
    int rc = conduit_address_in(env, address, length, &sa);
    if (rc < 0) {
        return rc;
    }
    return bind(fd, (struct sockaddr *) &sa, (socklen_t) length) < 0 ? -errno : 0;
}

static jint c_listen(JNIEnv *env, jclass clazz, jint fd, jint backlog) {
    return listen(fd, backlog) < 0 ? -errno : 0;
}

static jint c_connect(JNIEnv *env, jclass clazz, jint fd, jbyteArray address, jint length) {
    struct sockaddr_storage sa;
    int rc = conduit_address_in(env, address, length, &sa);
    if (rc < 0) {
        return rc;
    }
    return connect(fd, (struct sockaddr *) &sa, (socklen_t) length) < 0 ? -errno : 0;
}

jint conduit_socket_error(JNIEnv *env, jclass clazz, jint fd) {
    int err = 0;
    socklen_t length = sizeof err;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &length) < 0) {
        return -errno;
    }
    return -err;
}

#if defined(__linux__)
jint conduit_setsockopt_bytes(JNIEnv *env, jclass clazz, jint fd, jint level, jint optname, jbyteArray value,
                              jint length) {
    jbyte buf[256];
    if (length < 0 || length > (jint) sizeof buf) {
        return -EINVAL;
    }
    (*env)->GetByteArrayRegion(env, value, 0, length, buf);
    return setsockopt(fd, level, optname, buf, (socklen_t) length) < 0 ? -errno : 0;
}

jint conduit_pipe2(JNIEnv *env, jclass clazz, jintArray out, jint flags) {
    int fds[2];
    if (pipe2(fds, flags) < 0) {
        return -errno;
    }
    jint values[2] = { (jint) fds[0], (jint) fds[1] };
    (*env)->SetIntArrayRegion(env, out, 0, 2, values);
    return 0;
}

jlong conduit_sendfile(JNIEnv *env, jclass clazz, jint outFd, jint inFd, jlong offset, jlong count) {
    off_t off = (off_t) offset;
    ssize_t n = sendfile(outFd, inFd, &off, (size_t) count);
    return n < 0 ? -errno : (jlong) n;
}

jlong conduit_splice(JNIEnv *env, jclass clazz, jint fdIn, jlong offIn, jint fdOut, jlong offOut, jlong length,
                     jint flags) {
    loff_t in = (loff_t) offIn;
    loff_t out = (loff_t) offOut;
    ssize_t n = splice(fdIn, offIn < 0 ? NULL : &in, fdOut, offOut < 0 ? NULL : &out, (size_t) length,
                       (unsigned int) flags);
    return n < 0 ? -errno : (jlong) n;
}

/*
 * The JDK's FileChannelImpl holds a java.io.FileDescriptor in its field "fd", which holds the int in its own field
 * "fd". JNI field access is not subject to module encapsulation, so no --add-opens is needed.
 */
jint conduit_file_descriptor_of(JNIEnv *env, jclass clazz, jobject channel) {
    jfieldID channelFd = (*env)->GetFieldID(env, (*env)->GetObjectClass(env, channel), "fd",
                                            "Ljava/io/FileDescriptor;");
    if (channelFd == NULL) {
        (*env)->ExceptionClear(env);
        return -EBADF;
    }
    jobject descriptor = (*env)->GetObjectField(env, channel, channelFd);
    if (descriptor == NULL) {
        return -EBADF;
    }
    jfieldID descriptorFd = (*env)->GetFieldID(env, (*env)->GetObjectClass(env, descriptor), "fd", "I");
    if (descriptorFd == NULL) {
        (*env)->ExceptionClear(env);
        return -EBADF;
    }
    jint fd = (*env)->GetIntField(env, descriptor, descriptorFd);
    return fd < 0 ? -EBADF : fd;
}
#endif

static jint c_shutdown(JNIEnv *env, jclass clazz, jint fd, jint how) {
    return shutdown(fd, how) < 0 ? -errno : 0;
}

static jint c_read(JNIEnv *env, jclass clazz, jint fd, jlong address, jint length) {
    ssize_t n = read(fd, PTR(address), (size_t) length);
    return n < 0 ? -errno : (jint) n;
}

static jlong c_writev(JNIEnv *env, jclass clazz, jint fd, jlong iovAddress, jint iovCount) {
    ssize_t n = writev(fd, PTR(iovAddress), iovCount);
    return n < 0 ? -errno : (jlong) n;
}

static jint c_getsockname(JNIEnv *env, jclass clazz, jint fd, jbyteArray addressOut) {
    struct sockaddr_storage sa;
    socklen_t length = sizeof sa;
    if (getsockname(fd, (struct sockaddr *) &sa, &length) < 0) {
        return -errno;
    }
    conduit_address_out(env, addressOut, &sa, length);
    return 0;
}

static jint c_getpeername(JNIEnv *env, jclass clazz, jint fd, jbyteArray addressOut) {
    struct sockaddr_storage sa;
    socklen_t length = sizeof sa;
    if (getpeername(fd, (struct sockaddr *) &sa, &length) < 0) {
        return -errno;
    }
    conduit_address_out(env, addressOut, &sa, length);
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

/*
 * SO_ATTACH_REUSEPORT_CBPF (socket(7), Linux 4.5+): attaches to fd's SO_REUSEPORT group a classic BPF program that
 * answers the constant `index`, so the kernel gives every new connection (TCP) or datagram (UDP) of the group to the
 * listening socket at that place in the group (the order they joined it; an index past the end falls back to the
 * hash). -ENOPROTOOPT where the option does not exist.
 */
static jint c_attachReuseportCbpf(JNIEnv *env, jclass clazz, jint fd, jint index) {
#if defined(__linux__) && defined(SO_ATTACH_REUSEPORT_CBPF)
    struct sock_filter code[] = { BPF_STMT(BPF_RET | BPF_K, (__u32) index) };
    struct sock_fprog program = { .len = 1, .filter = code };
    return setsockopt(fd, SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF, &program, sizeof program) < 0 ? -errno : 0;
#else
    return -ENOPROTOOPT;
#endif
}

/* SO_DETACH_REUSEPORT_BPF (Linux 5.3+): removes the program of fd's SO_REUSEPORT group; -ENOENT when none. */
static jint c_detachReuseportBpf(JNIEnv *env, jclass clazz, jint fd) {
#if defined(__linux__) && defined(SO_DETACH_REUSEPORT_BPF)
    int unused = 0;
    return setsockopt(fd, SOL_SOCKET, SO_DETACH_REUSEPORT_BPF, &unused, sizeof unused) < 0 ? -errno : 0;
#else
    return -ENOPROTOOPT;
#endif
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

/*
 * Peer credentials of a Unix-domain socket: out = { pid (-1 when unknown), uid, gid }. Linux:
 * getsockopt(SO_PEERCRED); the BSDs: getpeereid(3), plus LOCAL_PEERPID where it exists (macOS).
 */
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

static const JNINativeMethod UNIX_METHODS[] = {
    N("addressOf", "(Ljava/nio/ByteBuffer;)J", c_addressOf),
    N("strerror", "(I)Ljava/lang/String;", c_strerror),
    N("constantNames", "()[Ljava/lang/String;", c_constantNames),
    N("constantValues", "()[I", c_constantValues),
    N("bind", "(I[BI)I", c_bind),
    N("listen", "(II)I", c_listen),
    N("connect", "(I[BI)I", c_connect),
    N("shutdown", "(II)I", c_shutdown),
    N("read", "(IJI)I", c_read),
    N("writev", "(IJI)J", c_writev),
    N("getsockname", "(I[B)I", c_getsockname),
    N("getpeername", "(I[B)I", c_getpeername),
    N("setsockoptInt", "(IIII)I", c_setsockoptInt),
    N("getsockoptInt", "(III[I)I", c_getsockoptInt),
    N("setsockoptLinger", "(III)I", c_setsockoptLinger),
    N("getsockoptLinger", "(I[I)I", c_getsockoptLinger),
    N("getPeerCredentials", "(I[I)I", c_getPeerCredentials),
    N("attachReuseportCbpf", "(II)I", c_attachReuseportCbpf),
    N("detachReuseportBpf", "(I)I", c_detachReuseportBpf),
};

/*
 * FindClass here uses the class loader of the class that asked for the library (the host bundle's class) and
 * initialises the facade, which has no static initialiser: no Java code runs and no other class's
 * initialisation lock is taken. RegisterNatives then binds the shared methods and the library's own.
 */
jint conduit_on_load(JavaVM *vm, const char *facade_class, const JNINativeMethod *own_methods,
                     jint own_method_count, const struct conduit_constant *own, jsize own_count) {
    JNIEnv *env;
    if ((*vm)->GetEnv(vm, (void **) &env, JNI_VERSION_1_8) != JNI_OK) {
        return JNI_ERR;
    }
    own_constants = own;
    own_constant_count = own_count;
    jclass facade = (*env)->FindClass(env, facade_class);
    if (facade == NULL) {
        return JNI_ERR; /* NoClassDefFoundError pending: System.load reports it */
    }
    jint shared_count = (jint) (sizeof UNIX_METHODS / sizeof UNIX_METHODS[0]);
    if ((*env)->RegisterNatives(env, facade, UNIX_METHODS, shared_count) != 0
            || (*env)->RegisterNatives(env, facade, own_methods, own_method_count) != 0) {
        return JNI_ERR;
    }
    (*env)->DeleteLocalRef(env, facade);
    return JNI_VERSION_1_8;
}
