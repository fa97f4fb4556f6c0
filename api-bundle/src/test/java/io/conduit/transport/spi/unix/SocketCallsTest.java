package io.conduit.transport.spi.unix;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.invoke.MethodHandles;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link SocketCalls#of}: each call reaches the facade's static method of the same name, with its arguments. */
class SocketCallsTest {

    /** A facade as a transport declares it: package-private static methods (natives in a real one). */
    static final class Facade {
        static final List<String> CALLS = new ArrayList<>();

        static int socket(int domain, int type, int protocol) {
            return log("socket", domain, type, protocol);
        }

        static int close(int fd) {
            return log("close", fd);
        }

        static int bind(int fd, byte[] sockaddr, int length) {
            return log("bind", fd, sockaddr.length, length);
        }

        static int listen(int fd, int backlog) {
            return log("listen", fd, backlog);
        }

        static int shutdown(int fd, int how) {
            return log("shutdown", fd, how);
        }

        static int getsockname(int fd, byte[] addressOut) {
            addressOut[0] = 1;
            return log("getsockname", fd);
        }

        static int getpeername(int fd, byte[] addressOut) {
            addressOut[0] = 2;
            return log("getpeername", fd);
        }

        static int setsockoptInt(int fd, int level, int optname, int value) {
            return log("setsockoptInt", fd, level, optname, value);
        }

        static int getsockoptInt(int fd, int level, int optname, int[] valueOut) {
            valueOut[0] = 99;
            return log("getsockoptInt", fd, level, optname);
        }

        static int setsockoptLinger(int fd, int onoff, int seconds) {
            if (seconds < 0) {
                throw new IllegalStateException("refused by the facade");
            }
            return log("setsockoptLinger", fd, onoff, seconds);
        }

        static int getsockoptLinger(int fd, int[] out) {
            out[0] = 1;
            out[1] = 5;
            return log("getsockoptLinger", fd);
        }

        static int attachReuseportCbpf(int fd, int index) {
            return log("attachReuseportCbpf", fd, index);
        }

        static int detachReuseportBpf(int fd) {
            return log("detachReuseportBpf", fd);
        }

        static int getPeerCredentials(int fd, int[] out) {
            out[0] = 100;
            out[1] = 1000;
            out[2] = 10;
            return log("getPeerCredentials", fd);
        }

        private static int log(String name, int... args) {
            StringBuilder b = new StringBuilder(name);
            for (int a : args) {
                b.append(' ').append(a);
            }
            CALLS.add(b.toString());
            return -args[0]; // distinct per call: the first argument, negated
        }
    }

    /** A facade that lacks {@code getsockoptLinger}. */
    static final class Incomplete {
        static int socket(int domain, int type, int protocol) {
            return 0;
        }
    }

    @Test
    void everyCallReachesTheFacadeMethodOfItsNameAndReturnsItsResult() {
        Facade.CALLS.clear();
        SocketCalls calls = SocketCalls.of(MethodHandles.lookup(), Facade.class);
        byte[] address = new byte[8];
        int[] value = new int[1];
        int[] linger = new int[2];
        assertEquals(-1, calls.socket(1, 2, 3));
        assertEquals(-4, calls.close(4));
        assertEquals(-5, calls.bind(5, new byte[16], 16));
        assertEquals(-6, calls.listen(6, 128));
        assertEquals(-7, calls.shutdown(7, 1));
        assertEquals(-8, calls.getsockname(8, address));
        assertEquals(1, address[0]);
        assertEquals(-9, calls.getpeername(9, address));
        assertEquals(2, address[0]);
        assertEquals(-10, calls.setsockoptInt(10, 6, 1, 1));
        assertEquals(-11, calls.getsockoptInt(11, 6, 1, value));
        assertEquals(99, value[0]);
        assertEquals(-12, calls.setsockoptLinger(12, 1, 3));
        assertEquals(-13, calls.getsockoptLinger(13, linger));
        assertArrayEquals(new int[] {1, 5}, linger);
        assertEquals(-14, calls.attachReuseportCbpf(14, 1));
        assertEquals(-15, calls.detachReuseportBpf(15));
        int[] credentials = new int[3];
        assertEquals(-16, calls.getPeerCredentials(16, credentials));
        assertArrayEquals(new int[] {100, 1000, 10}, credentials);
        assertEquals(List.of("socket 1 2 3", "close 4", "bind 5 16 16", "listen 6 128", "shutdown 7 1",
                "getsockname 8", "getpeername 9", "setsockoptInt 10 6 1 1", "getsockoptInt 11 6 1",
                "setsockoptLinger 12 1 3", "getsockoptLinger 13", "attachReuseportCbpf 14 1",
                "detachReuseportBpf 15", "getPeerCredentials 16"), Facade.CALLS);
    }

    @Test
    void anUncheckedExceptionOfTheFacadePassesThroughUnchanged() {
        SocketCalls calls = SocketCalls.of(MethodHandles.lookup(), Facade.class);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> calls.setsockoptLinger(1, 1, -1));
        assertEquals("refused by the facade", e.getMessage());
    }

    @Test
    void aFacadeWithoutOneOfTheMethodsIsRefusedNamingIt() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SocketCalls.of(MethodHandles.lookup(), Incomplete.class));
        assertTrue(e.getMessage().contains("close") && e.getMessage().contains(Incomplete.class.getName()),
                e.getMessage());
        assertSame(NoSuchMethodException.class, e.getCause().getClass());
    }
}
