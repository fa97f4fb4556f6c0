package io.conduit.itest;

import java.net.InetSocketAddress;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.transport.ManagedServer;
import io.conduit.transport.Transport;
import io.conduit.transport.Transports;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleActivator;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleEvent;
import org.osgi.framework.ServiceRegistration;
import org.osgi.framework.SynchronousBundleListener;
import org.osgi.framework.wiring.BundleWiring;

/**
 * The server side of {@link KarafSwapTortureTest}: the activator of a small bundle that test builds from these
 * classes and installs into Karaf. It registers the shell commands {@code torture:start}, {@code torture:status} and
 * {@code torture:finish} (a plain service with {@code osgi.command.*} properties, as the API bundle's commands are)
 * and records the class loader of every epoll bundle revision that starts, weakly.
 *
 * <ul>
 * <li>{@code start}: records the socket and anonymous-inode descriptors, the threads and Conduit's log lines as they
 *     are now, then starts a plain {@link ManagedServer} echo on 127.0.0.1 (any port) that follows the selection;
 *     answers {@code port=<n> transport=<name>}.</li>
 * <li>{@code status}: {@code transport=<server's> selected=<registry's> sameInstance=<true|false>
 *     epollUpdates=<n>}, the last being how many times the epoll bundle was updated since this bundle started.</li>
 * <li>{@code finish}: closes the server, then waits up to 30 s (with GC) for descriptors, threads and old epoll class
 *     loaders to settle; answers {@code key=value} figures, one per line.</li>
 * </ul>
 *
 * Threads are counted twice: all of the JVM's ({@code threads*}), which Karaf's SSH server changes by itself between
 * two sessions, and Conduit's own ({@code conduitThreads*}: names starting with {@code conduit-}: event loops, swap
 * threads), which nothing but Conduit changes.
 */
public final class KarafTortureEcho implements BundleActivator {

    private static final int SETTLE_SECONDS = 30;

    private final EpollLoaders epollLoaders = new EpollLoaders();
    private final AtomicLong unknownLoop = new AtomicLong();
    private final AtomicLong epollUpdates = new AtomicLong();
    private BundleContext context;
    private SynchronousBundleListener listener;
    private ServiceRegistration<?> commands;
    private ManagedServer server;
    private ConduitLogCounter log;
    private int fdsBefore;
    private List<String> fdListBefore;
    private int threadsBefore;
    private int conduitThreadsBefore;

    @Override
    public void start(BundleContext context) {
        this.context = context;
        listener = event -> {
            if (!"io.conduit.epoll".equals(event.getBundle().getSymbolicName())) {
                return;
            }
            if (event.getType() == BundleEvent.STARTED) {
                recordLoader(event.getBundle());
            } else if (event.getType() == BundleEvent.UPDATED) {
                epollUpdates.incrementAndGet();
            }
        };
        context.addBundleListener(listener);
        for (Bundle b : context.getBundles()) {
            if ("io.conduit.epoll".equals(b.getSymbolicName()) && b.getState() == Bundle.ACTIVE) {
                recordLoader(b);
            }
        }
        Dictionary<String, Object> props = new Hashtable<>();
        props.put("osgi.command.scope", "torture");
        props.put("osgi.command.function", new String[] {"start", "status", "finish"});
        commands = context.registerService(KarafTortureEcho.class, this, props);
    }

    @Override
    public synchronized void stop(BundleContext context) throws Exception {
        context.removeBundleListener(listener);
        commands.unregister();
        if (server != null) {
            server.close().await(30, TimeUnit.SECONDS);
        }
        if (log != null) {
            log.detach();
        }
    }

    private synchronized void recordLoader(Bundle epoll) {
        BundleWiring wiring = epoll.adapt(BundleWiring.class);
        if (wiring != null && wiring.getClassLoader() != null) {
            epollLoaders.record(wiring.getClassLoader());
        }
    }

    /** {@code torture:start}. */
    public synchronized String start() throws Exception {
        if (server != null) {
            return "already started: port=" + ((InetSocketAddress) server.localAddress()).getPort();
        }
        Descriptors.openJdkDescriptors();
        fdListBefore = Descriptors.list();
        fdsBefore = fdListBefore.size();
        threadsBefore = Thread.getAllStackTraces().size();
        conduitThreadsBefore = conduitThreads();
        log = new ConduitLogCounter().attach();
        Echo echo = new Echo();
        server = new ManagedServer(new InetSocketAddress("127.0.0.1", 0)).childHandler(echo).threads(2)
                .gracePeriod(2, TimeUnit.SECONDS);
        echo.server = server;
        InetSocketAddress address = (InetSocketAddress) server.start().get(10, TimeUnit.SECONDS);
        return "port=" + address.getPort() + " transport=" + server.transportName();
    }

    /** {@code torture:status}. */
    public synchronized String status() {
        String selected;
        try {
            selected = Transports.selected().name();
        } catch (RuntimeException e) {
            selected = "none";
        }
        return "transport=" + (server == null ? "none" : server.transportName()) + " selected=" + selected
                + " sameInstance=" + (server != null && server.transport() != null && isSelected(server.transport()))
                + " epollUpdates=" + epollUpdates.get();
    }

    private static boolean isSelected(Transport t) {
        try {
            return t == Transports.selected();
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** {@code torture:finish}. */
    public synchronized String finish() throws Exception {
        if (server == null) {
            return "not started";
        }
        long logLines = log.lines.get();
        long logThrowables = log.withThrowable.get();
        server.close().get(30, TimeUnit.SECONDS);
        server = null;
        log.detach();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(SETTLE_SECONDS);
        while ((Descriptors.count() > fdsBefore || conduitThreads() > conduitThreadsBefore)
                && System.nanoTime() - deadline < 0) {
            System.gc();
            Thread.sleep(100);
        }
        int loadersLeft = epollLoaders.reachableAfterGc(SETTLE_SECONDS);
        List<String> fdList = Descriptors.list();
        StringBuilder sb = new StringBuilder();
        sb.append("fdsBefore=").append(fdsBefore).append('\n');
        sb.append("fdsAfter=").append(fdList.size()).append('\n');
        sb.append("threadsBefore=").append(threadsBefore).append('\n');
        sb.append("threadsAfter=").append(Thread.getAllStackTraces().size()).append('\n');
        sb.append("conduitThreadsBefore=").append(conduitThreadsBefore).append('\n');
        sb.append("conduitThreadsAfter=").append(conduitThreads()).append('\n');
        sb.append("epollLoadersLeft=").append(loadersLeft).append('\n');
        sb.append("epollLoadersSeen=").append(epollLoaders.seen()).append('\n');
        sb.append("logLines=").append(logLines).append('\n');
        sb.append("logWithStackTrace=").append(logThrowables).append('\n');
        sb.append("stackTraces=").append(log.first).append('\n');
        sb.append("unknownLoop=").append(unknownLoop.get()).append('\n');
        if (fdList.size() > fdsBefore) {
            sb.append("fdListBefore=").append(fdListBefore).append('\n');
            sb.append("fdListAfter=").append(fdList).append('\n');
        }
        return sb.toString();
    }

    private static int conduitThreads() {
        int n = 0;
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            n += t.getName().startsWith("conduit-") ? 1 : 0;
        }
        return n;
    }

    /** Echoes every buffer; counts accepted connections on a loop of which the server cannot name the transport. */
    @ChannelHandler.Sharable
    private final class Echo implements ChannelHandler {
        volatile ManagedServer server;

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            if (server.transportOf(ctx.channel().eventLoop()) == null) {
                unknownLoop.incrementAndGet();
            }
            ctx.fireChannelActive();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.writeAndFlush(msg);
        }
    }
}
