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
}
