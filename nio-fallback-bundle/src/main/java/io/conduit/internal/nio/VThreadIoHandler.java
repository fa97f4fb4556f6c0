package io.conduit.internal.nio;

import io.conduit.transport.spi.IoEvents;
import io.conduit.transport.spi.IoHandler;
import io.conduit.transport.spi.IoHandlerContext;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;

/**
 * The "poller" of an {@code nio-vthread} event loop: there is nothing to poll — each connection's virtual
 * threads do blocking I/O and post readiness to the loop as tasks — so {@link #run} only parks the loop thread
 * until a task arrives ({@link #wakeup()}) or the next timer is due.
 *
 * <p>Threading: {@link #run}, registration and destruction on the loop thread; {@link #wakeup()} from any thread.
 */
final class VThreadIoHandler implements IoHandler {

    private static final System.Logger LOG = System.getLogger(VThreadIoHandler.class.getName());
    private static final Map<Thread, VThreadIoHandler> BY_THREAD = new ConcurrentHashMap<>(); // thread-safe map

    private final Thread thread;
    private volatile boolean woken;                       // set by wakeup(), cleared by run()
    private final Set<IoEvents> registered = new LinkedHashSet<>(); // loop-confined

    VThreadIoHandler() {
        this.thread = Thread.currentThread();
        BY_THREAD.put(thread, this);
    }

    /** @throws IllegalStateException when the caller is not an {@code nio-vthread} loop thread */
    static VThreadIoHandler current() {
        VThreadIoHandler h = BY_THREAD.get(Thread.currentThread());
        if (h == null) {
            throw new IllegalStateException("thread " + Thread.currentThread().getName() + " is not an event loop of"
                    + " the 'nio-vthread' transport; use a group from that transport's newEventLoopGroup");
        }
        return h;
    }

    void add(IoEvents events) {
        registered.add(events);
    }

    void remove(IoEvents events) {
        registered.remove(events);
    }

    @Override
    public int run(IoHandlerContext context) {
        if (context.canBlock() && !woken) {
            long delayNanos = context.delayNanos(System.nanoTime());
            if (delayNanos != 0) {
                context.waitStarting();
                if (delayNanos < 0) {
                    LockSupport.park(this);
                } else {
                    LockSupport.parkNanos(this, delayNanos);
                }
                context.waitEnded();
            }
        }
        woken = false;
        return 0;
    }

    @Override
    public void wakeup() {
        if (!woken) {
            woken = true;
            LockSupport.unpark(thread);
        }
    }

    @Override
    public void prepareToDestroy() {
        for (IoEvents e : new ArrayList<>(registered)) {
            try {
                e.loopShuttingDown();
            } catch (Throwable t) {
                LOG.log(System.Logger.Level.WARNING, "closing " + e + " at loop shutdown failed", t);
            }
        }
    }

    @Override
    public void destroy() {
        BY_THREAD.remove(thread, this);
    }
}
