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

    static NativeConstants constants() {
        Map<String, Integer> c = new LinkedHashMap<>();
        c.put("EAGAIN", 11);
        c.put("EWOULDBLOCK", 11);
        c.put("EINTR", 4);
        c.put("EINPROGRESS", 115);
        c.put("ECONNREFUSED", 111);
        c.put("ETIMEDOUT", 110);
        c.put("EHOSTUNREACH", 113);
        c.put("ENETUNREACH", 101);
        c.put("EADDRINUSE", EADDRINUSE);
        c.put("EADDRNOTAVAIL", 99);
        c.put("EACCES", EACCES);
        c.put("EBADF", EBADF);
        c.put("EMSGSIZE", 90);
        c.put("EAFNOSUPPORT", EAFNOSUPPORT);
        c.put("ENOTCONN", ENOTCONN);
        c.put("SA_FAMILY_SIZE", 2);
        c.put("SOCKADDR_STORAGE_SIZE", 128);
        c.put("ADDRESS_OUT_SIZE", 132);
        c.put("AF_UNSPEC", 0);
        c.put("AF_INET", AF_INET);
        c.put("AF_INET6", AF_INET6);
        c.put("AF_UNIX", AF_UNIX);
        c.put("SOCKADDR_IN_SIZE", 16);
        c.put("SOCKADDR_IN_FAMILY_OFFSET", 0);
        c.put("SOCKADDR_IN_PORT_OFFSET", 2);
        c.put("SOCKADDR_IN_ADDR_OFFSET", 4);
        c.put("SOCKADDR_IN6_SIZE", 28);
        c.put("SOCKADDR_IN6_FAMILY_OFFSET", 0);
        c.put("SOCKADDR_IN6_PORT_OFFSET", 2);
        c.put("SOCKADDR_IN6_ADDR_OFFSET", 8);
        c.put("SOCKADDR_IN6_SCOPE_ID_OFFSET", 24);
        c.put("SOCKADDR_UN_SIZE", 110);
        c.put("SOCKADDR_UN_FAMILY_OFFSET", 0);
        c.put("SOCKADDR_UN_PATH_OFFSET", 2);
        c.put("IPPROTO_IPV6", IPPROTO_IPV6);
        c.put("IPV6_V6ONLY", IPV6_V6ONLY);
        c.put("SHUT_RD", SHUT_RD);
        c.put("SHUT_WR", SHUT_WR);
        c.put("SOL_SOCKET", SOL_SOCKET);
        c.put("IPPROTO_IP", IPPROTO_IP);
        c.put("IPPROTO_TCP", IPPROTO_TCP);
        c.put("TCP_NODELAY", TCP_NODELAY);
        c.put("SO_SNDBUF", SO_SNDBUF);
        c.put("IP_TOS", IP_TOS);
        c.put("IPV6_TCLASS", IPV6_TCLASS);
        c.put("IP_RECVORIGDSTADDR", IP_RECVORIGDSTADDR);
        c.put("IPV6_RECVORIGDSTADDR", IPV6_RECVORIGDSTADDR);
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
}
