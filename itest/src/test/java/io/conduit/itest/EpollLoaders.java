package io.conduit.itest;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.conduit.transport.Transports;

/**
 * The class loaders of the epoll revisions a test saw (or of another native transport's, named at construction),
 * held weakly, to check that the old ones are collected (a class loader kept reachable keeps its native library
 * mapped). Not thread-safe: one test thread, or the caller's lock.
 */
final class EpollLoaders {

    private final List<WeakReference<ClassLoader>> loaders = new ArrayList<>();
    private final String transport;

    /** Records epoll's revisions. */
    EpollLoaders() {
        this("epoll");
    }

    /** @param transport the transport whose revisions {@link #record()} records, e.g. {@code io_uring} */
    EpollLoaders(String transport) {
        this.transport = transport;
    }

    /** Records the class loader of the transport registered now, when there is one not recorded yet. */
    void record() {
        ClassLoader l;
        try {
            l = Transports.get(transport).getClass().getClassLoader();
        } catch (RuntimeException e) {
            return; // not registered at this moment
        }
        record(l);
    }

    /** Records {@code l}, a revision's class loader, when it is not recorded yet. */
    void record(ClassLoader l) {
        for (WeakReference<ClassLoader> r : loaders) {
            if (r.get() == l) {
                return;
            }
        }
        loaders.add(new WeakReference<>(l));
    }

    /** @return how many class loaders were recorded */
    int seen() {
        return loaders.size();
    }

    /**
     * Calls {@link System#gc()} with some allocation pressure every 50 ms until at most one recorded loader is
     * reachable, for at most {@code seconds}.
     *
     * @return the recorded loaders still reachable at the end
     */
    int reachableAfterGc(int seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        for (;;) {
            int left = 0;
            for (WeakReference<ClassLoader> r : loaders) {
                left += r.get() == null ? 0 : 1;
            }
            if (left <= 1 || System.nanoTime() - deadline > 0) {
                return left;
            }
            byte[][] pressure = new byte[16][];
            for (int i = 0; i < pressure.length; i++) {
                pressure[i] = new byte[1 << 20];
            }
            System.gc();
            Thread.sleep(50);
        }
    }

    /**
     * For a failure message: each recorded loader still reachable, with the live threads that hold it (as their
     * context class loader or through their own class), and the names of the live threads that look like Conduit's.
     */
    String suspects() {
        StringBuilder out = new StringBuilder();
        java.util.Set<Thread> threads = Thread.getAllStackTraces().keySet();
        for (WeakReference<ClassLoader> r : loaders) {
            ClassLoader l = r.get();
            if (l == null) {
                continue;
            }
            out.append("\n  reachable: ").append(l);
            for (Thread t : threads) {
                if (t.getContextClassLoader() == l || t.getClass().getClassLoader() == l) {
                    out.append("\n    held by thread '").append(t.getName()).append("' (")
                            .append(t.getClass().getName()).append(", ").append(t.getState()).append(')');
                }
            }
        }
        out.append("\n  Conduit-like threads:");
        for (Thread t : threads) {
            String n = t.getName().toLowerCase(java.util.Locale.ROOT);
            if (n.contains("conduit") || n.contains("epoll") || n.contains("loop")) {
                out.append(' ').append('\'').append(t.getName()).append('\'');
            }
        }
        return out.toString();
    }
}
