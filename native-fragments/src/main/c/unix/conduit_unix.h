/*
 * Conduit: the JNI code that the epoll (Linux) and kqueue (macOS, FreeBSD; Linux test build over the kqueue
 * emulation) libraries share. conduit_unix.c is compiled into each library next to its own source
 * (conduit_epoll.c, conduit_kqueue.c); nothing here is exported from the shared library.
 *
 * What is shared:
 *  - the constants every Unix transport publishes (errno values, struct iovec, socket address layouts,
 *    families, the common socket options), followed in constantNames()/constantValues() by the library's own;
 *  - the natives that are the same system call with the same Java signature on every system (bind, connect,
 *    getsockname, setsockopt of an int, ...), registered on the library's facade class with its own;
 *  - the socket address helpers and JNI_OnLoad's registration.
 *
 * The rules of both libraries hold here too (DESIGN.md, native loading): about one function per system call and no
 * policy; every failure returns -errno; layouts, flags and errno values are published at load time;
 * JNI_OnLoad only finds the facade class (which has no static initialiser) and registers natives, so no Java
 * code runs and no class-initialisation lock is waited for.
 */
#ifndef CONDUIT_UNIX_H
#define CONDUIT_UNIX_H

#include <jni.h>
#include <limits.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#ifndef IOV_MAX
#define IOV_MAX 1024
#endif

/* Symbols of conduit_unix.c are visible to the library's own source only, never exported. */
#define CONDUIT_INTERNAL __attribute__((visibility("hidden")))

/*
 * An "address out" array holds a socklen_t-sized jint (the address length, native byte order) followed by the
 * sockaddr bytes; it must be at least ADDRESS_OUT_SIZE bytes long.
 */
#define ADDRESS_OUT_SIZE ((jint) (sizeof(jint) + sizeof(struct sockaddr_storage)))

#define PTR(address) ((void *) (intptr_t) (address))

/* A named constant published to Java: K(EAGAIN) publishes the macro under its own name, KV a computed value. */
struct conduit_constant {
    const char *name;
    jint value;
};

#define K(name) { #name, (jint) (name) }
#define KV(name, value) { name, (jint) (value) }

/* A native method: Java name, JNI signature, C function. */
#define N(name, signature, function) { (char *) name, (char *) signature, (void *) function }

/*
 * Copies length bytes of a Java struct sockaddr into *out (zeroed first).
 * Returns 0, or -EINVAL for a NULL array, a negative length or one longer than the array or the storage.
 */
CONDUIT_INTERNAL int conduit_address_in(JNIEnv *env, jbyteArray bytes, jint length, struct sockaddr_storage *out);

/* Writes an "address out" array (see ADDRESS_OUT_SIZE); does nothing when out is NULL or too short. */
CONDUIT_INTERNAL void conduit_address_out(JNIEnv *env, jbyteArray out, const struct sockaddr_storage *address,
                                          socklen_t length);

/* getsockopt(SO_ERROR): the pending socket error as -errno (0 = none), e.g. after a non-blocking connect(2). */
CONDUIT_INTERNAL jint conduit_socket_error(JNIEnv *env, jclass clazz, jint fd);

/*
 * Constant-table entries (K/KV) for the libraries that receive with recvmsg(2): the layouts of struct msghdr and
 * struct cmsghdr, cmsg(3). The includer has <sys/socket.h>.
 */
#define CONDUIT_MSGHDR_CONSTANTS \
    KV("MSGHDR_SIZE", sizeof(struct msghdr)), \
    KV("MSGHDR_NAME_OFFSET", offsetof(struct msghdr, msg_name)), \
    KV("MSGHDR_NAMELEN_OFFSET", offsetof(struct msghdr, msg_namelen)), \
    KV("MSGHDR_IOV_OFFSET", offsetof(struct msghdr, msg_iov)), \
    KV("MSGHDR_IOVLEN_OFFSET", offsetof(struct msghdr, msg_iovlen)), \
    KV("MSGHDR_CONTROL_OFFSET", offsetof(struct msghdr, msg_control)), \
    KV("MSGHDR_CONTROLLEN_OFFSET", offsetof(struct msghdr, msg_controllen)), \
    KV("MSGHDR_FLAGS_OFFSET", offsetof(struct msghdr, msg_flags)), \
    KV("CMSGHDR_LEN_OFFSET", offsetof(struct cmsghdr, cmsg_len)), \
    KV("CMSGHDR_LEVEL_OFFSET", offsetof(struct cmsghdr, cmsg_level)), \
    KV("CMSGHDR_TYPE_OFFSET", offsetof(struct cmsghdr, cmsg_type)), \
    KV("CMSG_DATA_OFFSET", CMSG_LEN(0)), \
    KV("CMSG_ALIGNMENT", CMSG_ALIGN(1))

#if defined(__linux__)
/*
 * Constant-table entries of Linux UDP sockets (the Java side is io.conduit.transport.spi.unix.LinuxMulticast and
 * the IP_ORIGDSTADDR control message): ip(7) struct ip_mreqn, ipv6(7) struct ipv6_mreq, the membership and
 * outgoing-interface options. The includer has <netinet/in.h>.
 */
#define CONDUIT_LINUX_UDP_CONSTANTS \
    K(IP_RECVORIGDSTADDR), K(IP_ORIGDSTADDR), K(IPV6_RECVORIGDSTADDR), K(IPV6_ORIGDSTADDR), \
    K(IP_ADD_MEMBERSHIP), K(IP_DROP_MEMBERSHIP), K(IPV6_ADD_MEMBERSHIP), K(IPV6_DROP_MEMBERSHIP), \
    K(IP_MULTICAST_IF), K(IPV6_MULTICAST_IF), \
    KV("IP_MREQN_SIZE", sizeof(struct ip_mreqn)), \
    KV("IP_MREQN_MULTIADDR_OFFSET", offsetof(struct ip_mreqn, imr_multiaddr)), \
    KV("IP_MREQN_ADDRESS_OFFSET", offsetof(struct ip_mreqn, imr_address)), \
    KV("IP_MREQN_IFINDEX_OFFSET", offsetof(struct ip_mreqn, imr_ifindex)), \
    KV("IPV6_MREQ_SIZE", sizeof(struct ipv6_mreq)), \
    KV("IPV6_MREQ_MULTIADDR_OFFSET", offsetof(struct ipv6_mreq, ipv6mr_multiaddr)), \
    KV("IPV6_MREQ_INTERFACE_OFFSET", offsetof(struct ipv6_mreq, ipv6mr_interface))

/*
 * setsockopt(2) of a struct option (struct ip_mreqn, struct ipv6_mreq) whose length bytes Java laid out with the
 * published offsets: 0 or -errno. Not in the shared table: each Linux library registers it as setsockoptBytes.
 */
CONDUIT_INTERNAL jint conduit_setsockopt_bytes(JNIEnv *env, jclass clazz, jint fd, jint level, jint optname,
                                               jbyteArray value, jint length);

/*
 * File regions and zero-copy forwarding, made outside any event mechanism: pipe2(2) (fds out = { read end, write
 * end }), sendfile(2) at an offset of inFd (its own file position is neither used nor moved), splice(2) (an offset
 * < 0 means the descriptor's own position: a NULL offset pointer, as for a pipe or socket), and the int descriptor
 * of a java.nio.channels.FileChannel. Each returns the result, or -errno (-EBADF for a FileChannel without the
 * JDK's fields or with a closed descriptor). Not in the shared table: each Linux library puts
 * CONDUIT_LINUX_FILE_METHODS in its own.
 */
CONDUIT_INTERNAL jint conduit_pipe2(JNIEnv *env, jclass clazz, jintArray out, jint flags);
CONDUIT_INTERNAL jlong conduit_sendfile(JNIEnv *env, jclass clazz, jint outFd, jint inFd, jlong offset, jlong count);
CONDUIT_INTERNAL jlong conduit_splice(JNIEnv *env, jclass clazz, jint fdIn, jlong offIn, jint fdOut, jlong offOut,
                                      jlong length, jint flags);
CONDUIT_INTERNAL jint conduit_file_descriptor_of(JNIEnv *env, jclass clazz, jobject channel);

#define CONDUIT_LINUX_FILE_METHODS \
    N("pipe2", "([II)I", conduit_pipe2), \
    N("sendfile", "(IIJJ)J", conduit_sendfile), \
    N("splice", "(IJIJJI)J", conduit_splice), \
    N("fileDescriptorOf", "(Ljava/lang/Object;)I", conduit_file_descriptor_of)
#endif

/*
 * The library's JNI_OnLoad: finds the facade class, registers the shared natives (addressOf, strerror,
 * constantNames, constantValues, bind, listen, connect, shutdown, read, writev, getsockname, getpeername,
 * setsockoptInt, getsockoptInt, setsockoptLinger, getsockoptLinger, getPeerCredentials) and then the library's
 * own methods. constantNames()/constantValues() publish the shared constants followed by own_constants.
 * Returns JNI_VERSION_1_8, or JNI_ERR (with a Java exception pending where JNI raised one).
 */
CONDUIT_INTERNAL jint conduit_on_load(JavaVM *vm, const char *facade_class, const JNINativeMethod *own_methods,
                                      jint own_method_count, const struct conduit_constant *own_constants,
                                      jsize own_constant_count);

#endif
