package io.conduit.internal.nio;

import io.conduit.transport.spi.IoEvents;
import io.conduit.transport.spi.IoHandler;
import io.conduit.transport.spi.IoHandlerContext;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The poller of one {@code nio} event loop: a {@link Selector}. Each registered channel's key carries its
 * {@link IoEvents} as attachment; ready keys are dispatched as connect, then write, then read readiness.
 *
 * <p>Threading: {@link #run} and everything it calls run on the loop thread; {@link #wakeup()} may be called
 * from any thread. The handler of a loop is found by its thread ({@link #current()}), which is how a channel
 * registering on its loop reaches the selector without the loop exposing its handler.
 */
final class NioIoHandler implements IoHandler {

    private static final System.Logger LOG = System.getLogger(NioIoHandler.class.getName());
    /** Handler per loop thread; entries are removed in {@link #destroy()}. Thread-safe map. */
    private static final Map<Thread, NioIoHandler> BY_THREAD = new ConcurrentHashMap<>();

    private final Selector selector;
    private final Thread thread;
    private final AtomicBoolean wakeupPending = new AtomicBoolean(); // set by wakeup(), cleared after select
    private List<Runnable> afterDeregistration = new ArrayList<>();  // loop-confined

    NioIoHandler() {
        try {
            this.selector = Selector.open();
        } catch (IOException e) {
            throw new UncheckedIOException("Selector.open() failed for a nio event loop: " + e.getMessage(), e);
        }
        this.thread = Thread.currentThread();
        BY_THREAD.put(thread, this);
    }

    /**
     * @return the handler of the calling loop thread
     * @throws IllegalStateException when the caller is not a {@code nio} loop thread
     */
    static NioIoHandler current() {
        NioIoHandler h = BY_THREAD.get(Thread.currentThread());
        if (h == null) {
            throw new IllegalStateException("thread " + Thread.currentThread().getName() + " is not an event loop of"
                    + " the 'nio' transport; register nio channels with a group from Transport.newEventLoopGroup"
                    + " of the nio transport");
        }
        return h;
    }

    Selector selector() {
        return selector;
    }

    /** Runs {@code task} on the loop after the next select, which releases cancelled keys. Loop thread. */
    void afterDeregistration(Runnable task) {
        afterDeregistration.add(task);
    }

    @Override
    public int run(IoHandlerContext context) {
        List<Runnable> released = null;
        if (!afterDeregistration.isEmpty()) {
            released = afterDeregistration;
            afterDeregistration = new ArrayList<>();
        }
        int selected;
        try {
            if (!context.canBlock() || released != null) {
                selected = selector.selectNow();
            } else {
                long delayNanos = context.delayNanos(System.nanoTime());
                if (delayNanos == 0) {
                    selected = selector.selectNow();
                } else {
                    context.waitStarting();
                    try {
                        // round up so a timer due in 0.3 ms does not turn into a busy selectNow loop
                        selected = delayNanos < 0 ? selector.select()
                                : selector.select(Math.max(1, (delayNanos + 999_999) / 1_000_000));
                    } finally {
                        context.waitEnded();
                    }
                }
            }
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "select() failed on " + thread.getName(), e);
            return 0;
        } finally {
            wakeupPending.set(false);
        }
        int handled = 0;
        if (selected > 0) {
            Set<SelectionKey> keys = selector.selectedKeys();
            for (SelectionKey key : keys) {
                handled++;
                dispatch(key);
            }
            keys.clear();
        }
        if (released != null) {
            for (Runnable r : released) {
                try {
                    r.run();
                } catch (Throwable t) {
                    LOG.log(System.Logger.Level.WARNING, "task after deregistration failed", t);
                }
            }
        }
        return handled;
    }

    private static void dispatch(SelectionKey key) {
        IoEvents events = (IoEvents) key.attachment();
        try {
            if (!key.isValid()) {
                return;
            }
            int ready = key.readyOps();
            if ((ready & SelectionKey.OP_CONNECT) != 0) {
                events.connectReady();
                if (!key.isValid()) {
                    return;
                }
            }
            if ((ready & SelectionKey.OP_WRITE) != 0) {
                events.writeReady();
                if (!key.isValid()) {
                    return;
                }
            }
            if ((ready & (SelectionKey.OP_READ | SelectionKey.OP_ACCEPT)) != 0) {
                events.readReady();
            }
        } catch (java.nio.channels.CancelledKeyException e) {
            // closed while handling: nothing more to report
        } catch (Throwable t) {
            LOG.log(System.Logger.Level.WARNING, "I/O event handling of " + events + " threw", t);
        }
    }

    @Override
    public void wakeup() {
        if (Thread.currentThread() != thread && wakeupPending.compareAndSet(false, true)) {
            selector.wakeup();
        }
    }

    @Override
    public void prepareToDestroy() {
        for (SelectionKey key : new ArrayList<>(selector.keys())) {
            if (key.isValid() && key.attachment() instanceof IoEvents events) {
                try {
                    events.loopShuttingDown();
                } catch (Throwable t) {
                    LOG.log(System.Logger.Level.WARNING, "closing " + events + " at loop shutdown failed", t);
                }
            }
        }
    }

    @Override
    public void destroy() {
        BY_THREAD.remove(thread, this);
        try {
            selector.close();
        } catch (IOException e) {
            LOG.log(System.Logger.Level.DEBUG, "closing the selector of " + thread.getName() + " failed", e);
        }
    }
}
