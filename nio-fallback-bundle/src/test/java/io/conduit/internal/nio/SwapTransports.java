package io.conduit.internal.nio;

import io.conduit.channel.Channel;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.ServerChannel;
import io.conduit.concurrent.EventLoop;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.transport.Availability;
import io.conduit.transport.ChannelType;
import io.conduit.transport.Transport;
import io.conduit.transport.spi.IoDatagramSocket;
import io.conduit.transport.spi.IoHandlerFactory;
import io.conduit.transport.spi.IoServerSocket;
import io.conduit.transport.spi.IoStreamSocket;
import io.conduit.transport.spi.TransportProvider;

import java.io.IOException;
import java.net.ProtocolFamily;
import java.net.StandardProtocolFamily;
import java.nio.channels.DatagramChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * Test-only transports for swap tests: a fresh {@code java.nio} transport under another name (e.g. {@code nio-a},
 * {@code nio-b}), so a swap moves between two real transports on JDK 17. Records the groups it makes; can hide
 * {@code SO_REUSEPORT} support to exercise the close-then-bind fallback.
 */
final class SwapTransports {

    private SwapTransports() {
    }

    static Provider provider(String name, boolean reusePort) {
        return new Provider(new Recording(name, reusePort));
    }

    /**
     * The providers one test registered, for its clean-up: {@link #register} asserts the registration,
     * {@link #unregisterAll} also drops the run-time preference. Test thread only.
     */
    static final class Registered {
        private final List<Provider> providers = new java.util.ArrayList<>();

        Provider register(String name, boolean reusePort) {
            Provider p = provider(name, reusePort);
            org.junit.jupiter.api.Assertions.assertTrue(io.conduit.transport.Transports.register(p),
                    name + " registered");
            providers.add(p);
            return p;
        }

        void unregisterAll() {
            io.conduit.transport.Transports.setPreference(null);
            providers.forEach(io.conduit.transport.Transports::unregister);
        }
    }

    /** A test body that may throw. */
    @FunctionalInterface
    interface Body {
        void run(List<Throwable> uncaught) throws Exception;
    }

    /**
     * Runs {@code body} with {@code conduit.transport.strict=true} (so an unregistered preference selects nothing)
     * and a default uncaught-exception handler that collects into the list {@code body} gets; restores both after.
     */
    static void strictCollectingUncaught(Body body) throws Exception {
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
    static void echoOnce(java.net.InetSocketAddress address, int n) throws Exception {
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
    static void await(java.util.function.BooleanSupplier condition, String what) throws InterruptedException {
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
    static final class DatagramEcho implements io.conduit.channel.ChannelHandler {
        @Override
        public void channelRead(io.conduit.channel.ChannelHandlerContext ctx, Object msg) {
            io.conduit.channel.DatagramPacket p = (io.conduit.channel.DatagramPacket) msg;
            ctx.writeAndFlush(new io.conduit.channel.DatagramPacket(p.content(), p.sender()));
        }
    }

    /** @return a started daemon thread named {@code name} running {@code r} */
    static Thread thread(String name, Runnable r) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** Makes {@code p}'s transport behave as one whose bundle is refreshed while a group is made on it. */
    static void goesAwayOnNextGroup(Provider p) {
        p.transport.beforeNewGroup = () -> {
            io.conduit.transport.Transports.unregister(p);
            throw new NoClassDefFoundError("io/conduit/test/EventArray"); // as a refreshed bundle's class loader says
        };
    }

    /** Every record of one logger, at every level, while open (restores the logger's level when closed). */
    static final class LogRecords extends java.util.logging.Handler implements AutoCloseable {
        final List<java.util.logging.LogRecord> records = new java.util.concurrent.CopyOnWriteArrayList<>();
        private final java.util.logging.Logger logger;
        private final java.util.logging.Level levelBefore;

        LogRecords(Class<?> loggedBy) {
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
        List<String> messages() {
            return records.stream().map(java.util.logging.LogRecord::getMessage).toList();
        }

        /** @return "message / throwable" of each record with a throwable */
        List<String> withThrowable() {
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

    /** Wraps a fresh {@link NioTransport} named {@code name}; thread-safe. */
    static final class Recording implements Transport {
        final NioTransport delegate;
        final boolean reusePort;
        /** Groups made through this transport, in order. */
        final List<EventLoopGroup> groups = new CopyOnWriteArrayList<>();
        /** Calls of {@code newEventLoopGroup}, also those {@link #beforeNewGroup} ended. */
        final java.util.concurrent.atomic.AtomicInteger groupRequests = new java.util.concurrent.atomic.AtomicInteger();
        /** Run first by {@code newEventLoopGroup} when set: may throw, e.g. as a transport whose bundle went away. */
        volatile Runnable beforeNewGroup;

        Recording(String name, boolean reusePort) {
            this.reusePort = reusePort;
            this.delegate = new NioTransport(name, EnumSet.of(ChannelType.TCP, ChannelType.UDP, ChannelType.UNIX_STREAM),
                    new NioTransport.Sockets() {
                        @Override
                        public IoStreamSocket stream(ProtocolFamily family) throws IOException {
                            return new NioStreamSocket(SocketChannel.open(family), family == StandardProtocolFamily.UNIX);
                        }

                        @Override
                        public IoServerSocket server(ProtocolFamily family) throws IOException {
                            return new NioServerSocket(ServerSocketChannel.open(family), family == StandardProtocolFamily.UNIX);
                        }

                        @Override
                        public IoDatagramSocket datagram() throws IOException {
                            return new NioDatagramSocket(DatagramChannel.open());
                        }

                        @Override
                        public IoHandlerFactory handlerFactory() {
                            return NioIoHandler::new;
                        }
                    });
        }

        @Override
        public String name() {
            return delegate.name();
        }

        @Override
        public boolean isNative() {
            return false;
        }

        @Override
        public Set<ChannelType> channelTypes() {
            return delegate.channelTypes();
        }

        /** Run first by {@code supports} when set: may throw, e.g. as a transport whose bundle went away. */
        volatile Runnable beforeSupports;

        @Override
        public boolean supports(ChannelOption<?> option) {
            Runnable hook = beforeSupports;
            if (hook != null) {
                hook.run();
            }
            return (reusePort || option != ChannelOption.SO_REUSEPORT) && delegate.supports(option);
        }

        @Override
        public EventLoopGroup newEventLoopGroup(int nThreads) {
            return newEventLoopGroup(nThreads, null);
        }

        @Override
        public EventLoopGroup newEventLoopGroup(int nThreads, ThreadFactory threadFactory) {
            groupRequests.incrementAndGet();
            Runnable hook = beforeNewGroup;
            if (hook != null) {
                hook.run();
            }
            EventLoopGroup g = delegate.newEventLoopGroup(nThreads, threadFactory);
            groups.add(g);
            return g;
        }

        @Override
        public Channel newChannel(ChannelType type, EventLoop loop) {
            return delegate.newChannel(type, loop);
        }

        @Override
        public ServerChannel newServerChannel(ChannelType type, EventLoop loop) {
            return delegate.newServerChannel(type, loop);
        }

        @Override
        public String toString() {
            return "Recording[" + name() + ", reusePort=" + reusePort + "]";
        }
    }

    static final class Provider implements TransportProvider {
        final Recording transport;

        Provider(Recording transport) {
            this.transport = transport;
        }

        @Override
        public String name() {
            return transport.name();
        }

        @Override
        public boolean isNative() {
            return false;
        }

        @Override
        public int ranking() {
            return 1;
        }

        @Override
        public Availability availability() {
            return Availability.available();
        }

        @Override
        public Transport transport() {
            return transport;
        }
    }
}
