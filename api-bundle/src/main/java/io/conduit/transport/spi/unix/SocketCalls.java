package io.conduit.transport.spi.unix;

import java.lang.invoke.MethodHandles;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * SPI for transport implementers: the socket system calls that every Unix transport's native library offers, as
 * the shared socket logic ({@link UnixSockets}, {@link SocketOptionTable}) calls them. Most of them are the natives
 * the shared {@code conduit_unix.c} registers on each transport's facade class; {@code socket(2)} and
 * {@code close(2)} come from the transport's own C file. JNI binds a native to the class that declares it, so the
 * natives stay in the transport bundle: a transport gets this interface over its facade with
 * {@link #of(MethodHandles.Lookup, Class)}, or implements it itself (e.g. a test double).
 *
 * <p><b>Results.</b> Every method returns what the native returns: a value &gt;= 0 on success, {@code -errno} on
 * failure (the errno numbers of the transport's own library, see {@link UnixErrors}). None throws for a failed call.
 * <b>Addresses</b> cross as raw {@code struct sockaddr} bytes laid out by {@link SockaddrCodec}; an "address out"
 * array ({@link SockaddrCodec#newAddressOut()}) receives the {@code socklen_t} length as a native-order
 * {@code int}, then the sockaddr bytes.
 *
 * <p><b>Threading.</b> Any thread, as the system calls are: implementations hold no state.
 *
 * @since 0.5.0
 */
@ConsumerType
public interface SocketCalls {

    /**
     * The socket calls of a transport's native facade: each method calls the facade's static method of the same
     * name and parameter types, returning {@code int} (e.g. {@code static native int bind(int, byte[], int)}),
     * through a {@link java.lang.invoke.MethodHandle} found once here. A call allocates nothing; the facade keeps
     * no static initialiser for this (nothing is looked up on it before this method runs).
     *
     * @param lookup a lookup that may call the facade's methods, typically {@code MethodHandles.lookup()} in the
     *               facade's own package (the natives may be package-private)
     * @param facade the class that declares the natives, e.g. the transport's {@code Native}
     * @return the calls; immutable, any thread
     * @throws IllegalArgumentException when the facade lacks one of the methods or the lookup cannot call it
     */
    static SocketCalls of(MethodHandles.Lookup lookup, Class<?> facade) {
        return new FacadeSocketCalls(lookup, facade);
    }

    /** {@code socket(2)}: flags such as {@code SOCK_NONBLOCK} are ORed into {@code type}. @return the fd or -errno */
    int socket(int domain, int type, int protocol);

    /** {@code close(2)}. @return 0 or -errno */
    int close(int fd);

    /** {@code bind(2)} to the first {@code length} bytes of {@code sockaddr}. @return 0 or -errno */
    int bind(int fd, byte[] sockaddr, int length);

    /** {@code listen(2)} with {@code backlog} connections. @return 0 or -errno */
    int listen(int fd, int backlog);

    /** {@code shutdown(2)}; {@code how} is the library's {@code SHUT_RD}, {@code SHUT_WR} or {@code SHUT_RDWR}. */
    int shutdown(int fd, int how);

    /** {@code getsockname(2)} into an address-out array. @return 0 or -errno */
    int getsockname(int fd, byte[] addressOut);

    /** {@code getpeername(2)} into an address-out array. @return 0 or -errno ({@code -ENOTCONN} when unconnected) */
    int getpeername(int fd, byte[] addressOut);

    /** {@code setsockopt(2)} of an {@code int} option. @return 0 or -errno */
    int setsockoptInt(int fd, int level, int optname, int value);

    /** {@code getsockopt(2)} of an {@code int} option into {@code valueOut[0]}. @return 0 or -errno */
    int getsockoptInt(int fd, int level, int optname, int[] valueOut);

    /** {@code setsockopt(SO_LINGER)} with {@code struct linger { int l_onoff; int l_linger; }}, seconds. */
    int setsockoptLinger(int fd, int onoff, int seconds);

    /** {@code getsockopt(SO_LINGER)}: {@code out = {l_onoff, l_linger}} ({@code l_linger} in seconds). */
    int getsockoptLinger(int fd, int[] out);

    /**
     * {@code setsockopt(SO_ATTACH_REUSEPORT_CBPF)} with a one-instruction program answering {@code index}, so the
     * {@code SO_REUSEPORT} group of {@code fd} gives new connections to its listener at that index ({@code socket(7)}).
     *
     * @return 0 or -errno ({@code -ENOPROTOOPT} where the system lacks the option)
     */
    int attachReuseportCbpf(int fd, int index);

    /** {@code setsockopt(SO_DETACH_REUSEPORT_BPF)}. @return 0 or -errno ({@code -ENOENT}: no program attached) */
    int detachReuseportBpf(int fd);

    /**
     * The credentials of a Unix-domain stream socket's peer: {@code getsockopt(SO_PEERCRED)} on Linux
     * ({@code unix(7)}), {@code getpeereid(3)} with the pid as 0 on the BSDs. {@code out = {pid, uid, gid}}.
     * The facade's method of this name is required by {@link #of}; this default, for other implementations that have
     * no such call, refuses.
     *
     * @return 0 or -errno ({@code -ENOTCONN} when the socket is not connected)
     * @throws UnsupportedOperationException when this implementation has no such call
     * @since 0.6.0
     */
    default int getPeerCredentials(int fd, int[] out) {
        throw new UnsupportedOperationException(this + " cannot read peer credentials");
    }
}
