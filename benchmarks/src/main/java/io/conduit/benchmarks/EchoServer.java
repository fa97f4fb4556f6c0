package io.conduit.benchmarks;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Entry point of one benchmark echo server JVM: {@code EchoServer KIND} with KIND one of {@code conduit-epoll},
 * {@code conduit-nio}, {@code netty-epoll}, {@code netty-nio}, each optionally followed by {@code -framed} or
 * {@code -tls} (see {@link Pipeline}), or {@code netty-epoll-tls-openssl}.
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
            System.err.println("usage: EchoServer (conduit|netty)-(epoll|nio)[-framed|-tls|-tls-openssl]");
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
        String k = kind.toLowerCase(Locale.ROOT);
        String className;
        if (k.startsWith("conduit-")) {
            className = "io.conduit.benchmarks.ConduitEchoServer";
        } else if (k.startsWith("netty-")) {
            className = "io.conduit.benchmarks.NettyEchoServer";
        } else {
            throw unknown(kind);
        }
        String[] parts = k.substring(k.indexOf('-') + 1).split("-", 2);
        String transport = parts[0];
        Pipeline pipeline = Pipeline.of(parts.length > 1 ? parts[1] : "plain");
        if (transport.equals("iouring") && className.endsWith("ConduitEchoServer")) {
            transport = "io_uring"; // Conduit's io_uring transport (issue 20), plain echo only for now
        }
        if (pipeline == null || !(transport.equals("epoll") || transport.equals("nio") || transport.equals("io_uring")
                || transport.equals("iouring"))
                || (pipeline == Pipeline.TLS_OPENSSL && !className.endsWith("NettyEchoServer"))) {
            throw unknown(kind);
        }
        Class<?> type;
        try {
            type = Class.forName(className);
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(className + " is not built in this version of the benchmarks", e);
        }
        return (Implementation) type.getConstructor(String.class, Pipeline.class).newInstance(transport, pipeline);
    }

    private static IllegalArgumentException unknown(String kind) {
        return new IllegalArgumentException("unknown server kind '" + kind + "': use (conduit|netty)-(epoll|nio), "
                + "optionally followed by -framed or -tls, or netty-(epoll|nio)-tls-openssl");
    }

    /**
     * What the server's pipeline does around the echo. {@code FRAMED}: a length-field frame decoder (4-byte
     * big-endian length, {@value #MAX_FRAME_BYTES}-byte maximum, header stripped) and the matching prepender, the
     * echo handler sees one message per frame. {@code TLS}: TLS 1.3 on the JDK's {@code SSLEngine} with the
     * PKCS#12 key store named by {@code -Dbench.tls.keyStore} (password {@code -Dbench.tls.password});
     * {@code TLS_OPENSSL}: the same with Netty's OpenSSL provider (netty-tcnative).
     */
    public enum Pipeline {
        PLAIN, FRAMED, TLS, TLS_OPENSSL;

        static Pipeline of(String suffix) {
            switch (suffix) {
                case "plain": return PLAIN;
                case "framed": return FRAMED;
                case "tls": return TLS;
                case "tls-openssl": return TLS_OPENSSL;
                default: return null;
            }
        }
    }

    /** Longest frame the framed pipelines accept, header included. */
    static final int MAX_FRAME_BYTES = 1 << 20;

    /** The TLS pipelines' PKCS#12 key store ({@code -Dbench.tls.keyStore}); fails when it is not set. */
    static java.nio.file.Path tlsKeyStore() {
        String path = System.getProperty("bench.tls.keyStore");
        if (path == null || path.isEmpty()) {
            throw new IllegalStateException("a TLS server needs -Dbench.tls.keyStore=<PKCS#12 file>");
        }
        return java.nio.file.Paths.get(path);
    }

    /** The key store's password ({@code -Dbench.tls.password}, default {@value #DEFAULT_TLS_PASSWORD}). */
    static char[] tlsPassword() {
        return System.getProperty("bench.tls.password", DEFAULT_TLS_PASSWORD).toCharArray();
    }

    static final String DEFAULT_TLS_PASSWORD = "conduit-bench";
}
