package io.conduit.transport.spi;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/** A poller with nothing to poll, for tests of loops and channels: parks until woken or the next timer. */
public final class IdleIoHandler implements IoHandler {
    private final Thread thread = Thread.currentThread();
    private volatile boolean woken;

    @Override
    public int run(IoHandlerContext context) {
        if (context.canBlock() && !woken) {
            long d = context.delayNanos(System.nanoTime());
            LockSupport.parkNanos(this, d < 0 ? TimeUnit.MILLISECONDS.toNanos(50) : Math.max(1, d));
        }
        woken = false;
        return 0;
    }

    @Override
    public void wakeup() {
        woken = true;
        LockSupport.unpark(thread);
    }

    @Override
    public void prepareToDestroy() {
    }

    @Override
    public void destroy() {
    }
}
