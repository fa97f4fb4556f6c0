package io.conduit.testsuite;

import io.conduit.transport.Transport;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Helpers of the swap suites: copies of the transport under test under other names ({@link RenamedTransport}, e.g.
 * {@code swap-a}, {@code swap-b}), so a swap moves between two real transports of one kind; echo and wait helpers;
 * a transport that behaves as one whose bundle is refreshed away; log capture.
 */
public final class SwapTransports {

    private SwapTransports() {
    }

    /** @return a provider of {@code base} named {@code name}, without {@code SO_REUSEPORT} unless {@code reusePort} */
    public static RenamedTransport.Provider provider(Transport base, String name, boolean reusePort) {
        return new RenamedTransport(base, name, reusePort).provider();
    }

    /**
     * The providers one test registered, for its clean-up: {@link #register} asserts the registration,
     * {@link #unregisterAll} also drops the run-time preference. Test thread only.
     */
    public static final class Registered {
        private final List<RenamedTransport.Provider> providers = new java.util.ArrayList<>();
        private final Supplier<Transport> base;

        /** @param base the transport under test, asked at each registration */
        public Registered(Supplier<Transport> base) {
            this.base = base;
        }

        public RenamedTransport.Provider register(String name, boolean reusePort) {
            RenamedTransport.Provider p = provider(base.get(), name, reusePort);
            org.junit.jupiter.api.Assertions.assertTrue(io.conduit.transport.Transports.register(p),
                    name + " registered");
            providers.add(p);
            return p;
        }

        public void unregisterAll() {
            io.conduit.transport.Transports.setPreference(null);
            providers.forEach(io.conduit.transport.Transports::unregister);
        }
    }

    /** A test body that may throw. */
    @FunctionalInterface
    public interface Body {
        void run(List<Throwable> uncaught) throws Exception;
    }

    /**
     * Runs {@code body} with {@code conduit.transport.strict=true} (so an unregistered preference selects nothing)
     * and a default uncaught-exception handler that collects into the list {@code body} gets; restores both after.
     */
    public static void strictCollectingUncaught(Body body) throws Exception {
        List<Throwable> uncaught = new CopyOnWriteArrayList<>();
        Thread.UncaughtExceptionHandler before = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> uncaught.add(e));
        String strictBefore = System.setProperty("conduit.transport.strict", "true");
        try {
            body.run(uncaught);
        } finally {
            if (strictBefore == null) {
                System.clearProperty("conduit.transport.strict");
            } else {
                System.setProperty("conduit.transport.strict", strictBefore);
            }
            Thread.setDefaultUncaughtExceptionHandler(before);
        }
    }

    /** Connects, writes {@code n} patterned bytes, reads them back and asserts the echo; 2 s connect, 5 s read. */
    public static void echoOnce(java.net.InetSocketAddress address, int n) throws Exception {
        try (java.net.Socket s = new java.net.Socket()) {
            s.connect(address, 2000);
            s.setSoTimeout(5000);
            byte[] out = new byte[n];
            for (int i = 0; i < n; i++) {
                out[i] = (byte) (i * 13);
            }
            s.getOutputStream().write(out);
            byte[] in = s.getInputStream().readNBytes(n);
            org.junit.jupiter.api.Assertions.assertArrayEquals(out, in, "echo through " + address);
        }
    }

    /** Waits at most 10 s for {@code condition}, failing with {@code what}. */
    public static void await(java.util.function.BooleanSupplier condition, String what) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                org.junit.jupiter.api.Assertions.fail("timed out after 10 s waiting for " + what);
            }
            Thread.sleep(5);
        }
    }

    /** Sends every datagram back to its sender. */
    @io.conduit.channel.ChannelHandler.Sharable
    public static final class DatagramEcho implements io.conduit.channel.ChannelHandler {
        @Override
        public void channelRead(io.conduit.channel.ChannelHandlerContext ctx, Object msg) {
            io.conduit.channel.DatagramPacket p = (io.conduit.channel.DatagramPacket) msg;
            ctx.writeAndFlush(new io.conduit.channel.DatagramPacket(p.content(), p.sender()));
        }
    }

    /** @return a started daemon thread named {@code name} running {@code r} */
    public static Thread thread(String name, Runnable r) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** Makes {@code p}'s transport behave as one whose bundle is refreshed while a group is made on it. */
    public static void goesAwayOnNextGroup(RenamedTransport.Provider p) {
        p.transport.beforeNewGroup(() -> {
            io.conduit.transport.Transports.unregister(p);
            throw new NoClassDefFoundError("io/conduit/test/EventArray"); // as a refreshed bundle's class loader says
        });
    }

    /** Every record of one logger, at every level, while open (restores the logger's level when closed). */
    public static final class LogRecords extends java.util.logging.Handler implements AutoCloseable {
        public final List<java.util.logging.LogRecord> records = new java.util.concurrent.CopyOnWriteArrayList<>();
        private final java.util.logging.Logger logger;
        private final java.util.logging.Level levelBefore;

        public LogRecords(Class<?> loggedBy) {
            logger = java.util.logging.Logger.getLogger(loggedBy.getName());
            levelBefore = logger.getLevel();
            logger.setLevel(java.util.logging.Level.ALL);
            logger.addHandler(this);
        }

        @Override
        public void publish(java.util.logging.LogRecord r) {
            records.add(r);
        }

        /** @return the messages of the records so far */
        public List<String> messages() {
            return records.stream().map(java.util.logging.LogRecord::getMessage).toList();
        }

        /** @return "message / throwable" of each record with a throwable */
        public List<String> withThrowable() {
            return records.stream().filter(r -> r.getThrown() != null).map(r -> r.getMessage() + " / "
                    + r.getThrown()).toList();
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
            logger.removeHandler(this);
            logger.setLevel(levelBefore);
        }
    }
}
