package io.conduit.benchmarks;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Entry point of one benchmark echo server JVM: {@code EchoServer KIND} with KIND one of {@code conduit-epoll},
 * {@code conduit-nio}, {@code netty-epoll}, {@code netty-nio}.
 *
 * <p>Protocol with the driver ({@link LoadBenchmark}), one line each, on standard output:
 * <ul>
 *   <li>{@code READY port=<port> unsafe=<true|false> detail=<text>} once the loopback listener is bound (ephemeral
 *       port), or {@code UNAVAILABLE <cause>} and exit status 3 when the transport cannot run here;</li>
 *   <li>for each line {@code mem} on standard input: two full GCs, then
 *       {@code MEM connections=<open child channels> heap=<bytes used> direct=<bytes>}, where direct is the JDK's
 *       direct buffer pool plus memory a library allocates outside it (Netty without cleaner);</li>
 *   <li>end of standard input stops the server and the JVM.</li>
 * </ul>
 * The number of I/O threads is {@code -Dbench.serverThreads} (default 1: on a 2-core machine the load generator
 * gets the other core). Every implementation names its I/O threads {@value #IO_THREAD_PREFIX}{@code -…}, so the
 * driver can read their CPU time apart from the JVM's own threads (JIT compilers, GC).
 */
public final class EchoServer {

    /** Name prefix of every implementation's I/O (event loop) threads; Linux shows the first 15 characters. */
    static final String IO_THREAD_PREFIX = "bench-io";

    /** One echo server implementation. Implementations have a public no-argument constructor. */
    public interface Implementation extends AutoCloseable {
        /**
         * Binds a loopback listener on an ephemeral port and starts echoing.
         *
         * @param threads I/O threads to use
         * @return the bound port
         * @throws Exception when the transport cannot be started; the message says why
         */
        int start(int threads) throws Exception;

        /** Child channels currently active (counted by the echo handler); any thread. */
        int activeConnections();

        /** Direct memory, in bytes, allocated outside the JDK's direct buffer pool; 0 when there is none. */
        long untrackedDirectMemoryBytes();

        /** Whether this implementation uses {@code sun.misc.Unsafe} in this JVM. */
        boolean usesUnsafe();

        /** Free-form description (transport, allocator) for the report. */
        String detail();
    }

    private EchoServer() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: EchoServer conduit-epoll|conduit-nio|netty-epoll|netty-nio");
            System.exit(1);
        }
        int threads = Integer.getInteger("bench.serverThreads", 1);
        Implementation server;
        try {
            server = create(args[0]);
            int port = server.start(threads);
            System.out.println("READY port=" + port + " unsafe=" + server.usesUnsafe() + " detail="
                    + server.detail().replace('\n', ' '));
            System.out.flush();
        } catch (Throwable t) {
            Throwable root = t;
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            String cause = (t.getMessage() != null ? t.getMessage() : t.toString())
                    + (root != t ? " (cause: " + root + ")" : "");
            System.out.println("UNAVAILABLE " + cause.replace('\n', ' '));
            System.out.flush();
            t.printStackTrace();
            System.exit(3);
            return;
        }
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            if (line.trim().equals("mem")) {
                System.gc();
                System.gc();
                long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
                long direct = server.untrackedDirectMemoryBytes();
                for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
                    if (pool.getName().equals("direct")) {
                        direct += pool.getMemoryUsed();
                    }
                }
                System.out.println("MEM connections=" + server.activeConnections() + " heap=" + heap
                        + " direct=" + direct);
                System.out.flush();
            }
        }
        server.close();
        System.exit(0);
    }

    static Implementation create(String kind) throws Exception {
        String className;
        String transport;
        switch (kind.toLowerCase(Locale.ROOT)) {
            case "conduit-epoll":
                className = "io.conduit.benchmarks.ConduitEchoServer";
                transport = "epoll";
                break;
            case "conduit-nio":
                className = "io.conduit.benchmarks.ConduitEchoServer";
                transport = "nio";
                break;
            case "netty-epoll":
                className = "io.conduit.benchmarks.NettyEchoServer";
                transport = "epoll";
                break;
            case "netty-nio":
                className = "io.conduit.benchmarks.NettyEchoServer";
                transport = "nio";
                break;
            default:
                throw new IllegalArgumentException("unknown server kind '" + kind
                        + "': use conduit-epoll, conduit-nio, netty-epoll or netty-nio");
        }
        Class<?> type;
        try {
            type = Class.forName(className);
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(className + " is not built in this version of the benchmarks", e);
        }
        return (Implementation) type.getConstructor(String.class).newInstance(transport);
    }
}
