package io.conduit.transport.spi.unix;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.UndeclaredThrowableException;
import java.util.Objects;

/**
 * {@link SocketCalls} over the static natives of a transport's facade class, found once by name and JNI signature
 * ({@link SocketCalls#of}). Each call is one {@link MethodHandle#invokeExact} of a static method: no boxing, no
 * allocation. Immutable; any thread.
 */
final class FacadeSocketCalls implements SocketCalls {

    /** the facade's class name, for {@link #toString()} */
    private final String facadeName;
    private final MethodHandle socket;
    private final MethodHandle close;
    private final MethodHandle bind;
    private final MethodHandle listen;
    private final MethodHandle shutdown;
    private final MethodHandle getsockname;
    private final MethodHandle getpeername;
    private final MethodHandle setsockoptInt;
    private final MethodHandle getsockoptInt;
    private final MethodHandle setsockoptLinger;
    private final MethodHandle getsockoptLinger;
    private final MethodHandle attachReuseportCbpf;
    private final MethodHandle detachReuseportBpf;
    private final MethodHandle getPeerCredentials;

    FacadeSocketCalls(MethodHandles.Lookup lookup, Class<?> facade) {
        Objects.requireNonNull(lookup, "lookup");
        facadeName = facade.getName();
        Class<?> i = int.class;
        Class<?> bytes = byte[].class;
        socket = find(lookup, facade, "socket", i, i, i);
        close = find(lookup, facade, "close", i);
        bind = find(lookup, facade, "bind", i, bytes, i);
        listen = find(lookup, facade, "listen", i, i);
        shutdown = find(lookup, facade, "shutdown", i, i);
        getsockname = find(lookup, facade, "getsockname", i, bytes);
        getpeername = find(lookup, facade, "getpeername", i, bytes);
        setsockoptInt = find(lookup, facade, "setsockoptInt", i, i, i, i);
        getsockoptInt = find(lookup, facade, "getsockoptInt", i, i, i, int[].class);
        setsockoptLinger = find(lookup, facade, "setsockoptLinger", i, i, i);
        getsockoptLinger = find(lookup, facade, "getsockoptLinger", i, int[].class);
        attachReuseportCbpf = find(lookup, facade, "attachReuseportCbpf", i, i);
        detachReuseportBpf = find(lookup, facade, "detachReuseportBpf", i);
        getPeerCredentials = find(lookup, facade, "getPeerCredentials", i, int[].class);
    }

    private static MethodHandle find(MethodHandles.Lookup lookup, Class<?> facade, String name, Class<?>... params) {
        try {
            return lookup.findStatic(facade, name, MethodType.methodType(int.class, params));
        } catch (NoSuchMethodException | IllegalAccessException e) {
            throw new IllegalArgumentException(facade.getName() + " has no static int " + name
                    + MethodType.methodType(int.class, params).toString().replace("int(", "(")
                    + " that the given lookup can call", e);
        }
    }

    /** The natives declare no checked exception: anything else thrown is unexpected. */
    private static RuntimeException propagate(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new UndeclaredThrowableException(t);
    }

    @Override
    public int socket(int domain, int type, int protocol) {
        try {
            return (int) socket.invokeExact(domain, type, protocol);
        } catch (Throwable t) {
            throw propagate(t);
        }
    }

    @Override
    public int close(int fd) {
        try {
            return (int) close.invokeExact(fd);
        } catch (Throwable t) {
            throw propagate(t);
        }
    }

    @Override
    public int bind(int fd, byte[] sockaddr, int length) {
        try {
            return (int) bind.invokeExact(fd, sockaddr, length);
        } catch (Throwable t) {
            throw propagate(t);
        }
    }

    @Override
    public int listen(int fd, int backlog) {
        try {
            return (int) listen.invokeExact(fd, backlog);
        } catch (Throwable t) {
            throw propagate(t);
        }
    }

    @Override
    public int shutdown(int fd, int how) {
        try {
            return (int) shutdown.invokeExact(fd, how);
        } catch (Throwable t) {
            throw propagate(t);
        }
    }

    @Override
    public int getsockname(int fd, byte[] addressOut) {
        try {
            return (int) getsockname.invokeExact(fd, addressOut);
        } catch (Throwable t) {
            throw propagate(t);
        }
    }

    @Override
    public int getpeername(int fd, byte[] addressOut) {
        try {
            return (int) getpeername.invokeExact(fd, addressOut);
        } catch (Throwable t) {
            throw propagate(t);
        }
    }

    @Override
    public int setsockoptInt(int fd, int level, int optname, int value) {
        try {
            return (int) setsockoptInt.invokeExact(fd, level, optname, value);
        } catch (Throwable t) {
            throw propagate(t);
        }
    }

    @Override
    public int getsockoptInt(int fd, int level, int optname, int[] valueOut) {
        try {
            return (int) getsockoptInt.invokeExact(fd, level, optname, valueOut);
        } catch (Throwable t) {
            throw propagate(t);
        }
    }

    @Override
    public int setsockoptLinger(int fd, int onoff, int seconds) {
        try {
            return (int) setsockoptLinger.invokeExact(fd, onoff, seconds);
        } catch (Throwable t) {
            throw propagate(t);
        }
    }

    @Override
    public int getsockoptLinger(int fd, int[] out) {
        try {
            return (int) getsockoptLinger.invokeExact(fd, out);
        } catch (Throwable t) {
            throw propagate(t);
        }
    }

    @Override
    public int attachReuseportCbpf(int fd, int index) {
        try {
            return (int) attachReuseportCbpf.invokeExact(fd, index);
        } catch (Throwable t) {
            throw propagate(t);
        }
    }

    @Override
    public int detachReuseportBpf(int fd) {
        try {
            return (int) detachReuseportBpf.invokeExact(fd);
        } catch (Throwable t) {
            throw propagate(t);
        }
    }

    @Override
    public int getPeerCredentials(int fd, int[] out) {
        try {
            return (int) getPeerCredentials.invokeExact(fd, out);
        } catch (Throwable t) {
            throw propagate(t);
        }
    }

    @Override
    public String toString() {
        return "SocketCalls of " + facadeName;
    }
}
