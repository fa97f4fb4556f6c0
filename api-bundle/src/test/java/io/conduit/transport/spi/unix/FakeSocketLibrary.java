package io.conduit.transport.spi.unix;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.net.SocketAddress;

/**
 * A stand-in for a transport's native library in unit tests: the constants a Linux x86_64 build publishes (as a
 * real library would report them at load time) and {@link SocketCalls} that record each call and answer with a
 * result a test sets beforehand (0 by default).
 */
final class FakeSocketLibrary implements SocketCalls {

    static final int EPERM = 1;
    static final int ENOENT = 2;
    static final int ENOPROTOOPT = 92;
    static final int EBADF = 9;
    static final int EACCES = 13;
    static final int EINVAL = 22;
    static final int EAFNOSUPPORT = 97;
    static final int EADDRINUSE = 98;
    static final int ENOTCONN = 107;
    static final int AF_UNIX = 1;
    static final int AF_INET = 2;
    static final int AF_INET6 = 10;
    static final int SOL_SOCKET = 1;
    static final int IPPROTO_IP = 0;
    static final int IPPROTO_TCP = 6;
    static final int IPPROTO_IPV6 = 41;
    static final int TCP_NODELAY = 1;
    static final int SO_SNDBUF = 7;
    static final int IP_TOS = 1;
    static final int IPV6_TCLASS = 67;
    static final int IP_RECVORIGDSTADDR = 20;
    static final int IPV6_RECVORIGDSTADDR = 74;
    static final int IPV6_V6ONLY = 26;
    static final int SHUT_RD = 0;
    static final int SHUT_WR = 1;

    /** What a Linux x86_64 library publishes beyond the constants above, as "NAME value" pairs. */
    private static final String MORE_CONSTANTS = "EAGAIN 11 EWOULDBLOCK 11 EINTR 4 EINPROGRESS 115 ECONNREFUSED 111"
            + " ETIMEDOUT 110 EHOSTUNREACH 113 ENETUNREACH 101 EADDRNOTAVAIL 99 EMSGSIZE 90 AF_UNSPEC 0"
            + " SA_FAMILY_SIZE 2 SOCKADDR_STORAGE_SIZE 128 ADDRESS_OUT_SIZE 132"
            + " SOCKADDR_IN_SIZE 16 SOCKADDR_IN_FAMILY_OFFSET 0 SOCKADDR_IN_PORT_OFFSET 2 SOCKADDR_IN_ADDR_OFFSET 4"
            + " SOCKADDR_IN6_SIZE 28 SOCKADDR_IN6_FAMILY_OFFSET 0 SOCKADDR_IN6_PORT_OFFSET 2"
            + " SOCKADDR_IN6_ADDR_OFFSET 8 SOCKADDR_IN6_SCOPE_ID_OFFSET 24"
            + " SOCKADDR_UN_SIZE 110 SOCKADDR_UN_FAMILY_OFFSET 0 SOCKADDR_UN_PATH_OFFSET 2";

    /** @return the constants table of the fake library: the named fields of this class and {@link #MORE_CONSTANTS} */
    static NativeConstants constants() {
        Map<String, Integer> c = new LinkedHashMap<>();
        String[] more = MORE_CONSTANTS.split(" ");
        for (int i = 0; i < more.length; i += 2) {
            c.put(more[i], Integer.parseInt(more[i + 1]));
        }
        for (java.lang.reflect.Field f : FakeSocketLibrary.class.getDeclaredFields()) {
            if (f.getType() == int.class && java.lang.reflect.Modifier.isStatic(f.getModifiers())) {
                try {
                    c.put(f.getName(), f.getInt(null));
                } catch (IllegalAccessException e) {
                    throw new AssertionError(e);
                }
            }
        }
        String[] names = c.keySet().toArray(String[]::new);
        int[] values = c.values().stream().mapToInt(Integer::intValue).toArray();
        return NativeConstants.of(names, values, "io.conduit.test");
    }

    /** {@code strerror(3)} of the fake library */
    static String strerror(int errno) {
        return "error " + errno;
    }

    /** One recorded call: its name and integer arguments; {@code bytes} for bind. */
    record Call(String name, List<Integer> args, byte[] bytes) {
        @Override
        public String toString() {
            return name + args;
        }
    }

    final List<Call> calls = new ArrayList<>();
    /** call name → the results it answers, one per call (the last repeats); 0 when absent */
    private final Map<String, int[]> results = new HashMap<>();
    private final Map<String, Integer> answered = new HashMap<>();
    /** what getsockopt answers in valueOut (int options) */
    int optionValue;
    /** what getsockoptLinger answers */
    int[] linger = {0, 0};
    /** what getsockname / getpeername report, encoded with {@link #codec}; {@code null}: nothing */
    SocketAddress name;
    SockaddrCodec codec;

    /** The next calls of {@code call} return {@code values} in turn, the last one from then on. */
    void answer(String call, int... values) {
        results.put(call, values);
        answered.put(call, 0);
    }

    private int result(String call, Integer... args) {
        return result(call, null, args);
    }

    private int result(String call, byte[] bytes, Integer... args) {
        calls.add(new Call(call, List.of(args), bytes));
        int[] r = results.get(call);
        if (r == null) {
            return 0;
        }
        int i = answered.merge(call, 1, Integer::sum) - 1;
        return r[Math.min(i, r.length - 1)];
    }

    List<String> callNames() {
        return calls.stream().map(Call::name).toList();
    }

    @Override
    public int socket(int domain, int type, int protocol) {
        return result("socket", domain, type, protocol);
    }

    @Override
    public int close(int fd) {
        return result("close", fd);
    }

    @Override
    public int bind(int fd, byte[] sockaddr, int length) {
        return result("bind", sockaddr.clone(), fd, length);
    }

    @Override
    public int listen(int fd, int backlog) {
        return result("listen", fd, backlog);
    }

    @Override
    public int shutdown(int fd, int how) {
        return result("shutdown", fd, how);
    }

    @Override
    public int getsockname(int fd, byte[] addressOut) {
        return reportName("getsockname", fd, addressOut);
    }

    @Override
    public int getpeername(int fd, byte[] addressOut) {
        return reportName("getpeername", fd, addressOut);
    }

    private int reportName(String call, int fd, byte[] addressOut) {
        int r = result(call, fd);
        if (r == 0 && name != null) {
            ByteBuffer out = SockaddrCodec.wrap(addressOut);
            int length = codec.encode(name, out, Integer.BYTES, name instanceof java.net.InetSocketAddress i
                    && i.getAddress() instanceof java.net.Inet6Address);
            out.putInt(0, length);
        }
        return r;
    }

    @Override
    public int setsockoptInt(int fd, int level, int optname, int value) {
        return result("setsockoptInt", fd, level, optname, value);
    }

    @Override
    public int getsockoptInt(int fd, int level, int optname, int[] valueOut) {
        valueOut[0] = optionValue;
        return result("getsockoptInt", fd, level, optname);
    }

    @Override
    public int setsockoptLinger(int fd, int onoff, int seconds) {
        return result("setsockoptLinger", fd, onoff, seconds);
    }

    @Override
    public int getsockoptLinger(int fd, int[] out) {
        out[0] = linger[0];
        out[1] = linger[1];
        return result("getsockoptLinger", fd);
    }

    @Override
    public int attachReuseportCbpf(int fd, int index) {
        return result("attachReuseportCbpf", fd, index);
    }

    @Override
    public int detachReuseportBpf(int fd) {
        return result("detachReuseportBpf", fd);
    }

    /** what getPeerCredentials answers: pid, uid, gid */
    int[] credentials = {0, 0, 0};

    @Override
    public int getPeerCredentials(int fd, int[] out) {
        System.arraycopy(credentials, 0, out, 0, 3);
        return result("getPeerCredentials", fd);
    }
}
