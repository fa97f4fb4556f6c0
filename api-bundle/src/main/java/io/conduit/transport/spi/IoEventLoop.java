package io.conduit.transport.spi;

import io.conduit.concurrent.EventLoop;
import org.osgi.annotation.versioning.ProviderType;

/**
 * One loop of an {@link IoEventLoopGroup}: a single thread that alternates between running tasks and calling its
 * {@link IoHandler}. Transport code runs work on the loop with {@link #execute(Runnable)} (any thread) and
 * checks {@link #inEventLoop()} before touching loop-confined state (the handler, its registrations).
 */
@ProviderType
public interface IoEventLoop extends EventLoop {

    /**
     * @return this loop's handler, or {@code null} before the loop thread created it (it is created on the
     *         first task). Use it only on the loop thread, except {@link IoHandler#wakeup()}.
     */
    IoHandler ioHandler();

    @Override
    IoEventLoopGroup parent();

    @Override
    default IoEventLoop next() {
        return this;
    }

    /**
     * @return the I/O event loop whose thread is calling, or {@code null} when the caller is not such a loop
     *         thread (also when the group's thread factory does not make
     *         {@link io.conduit.concurrent.EventExecutors#newThreadFactory(String) loop threads})
     */
    static IoEventLoop current() {
        return SingleThreadIoEventLoop.current();
    }

    /**
     * Per-loop state of a transport (scratch iovec arrays, batch memory) kept on the calling loop thread instead
     * of a {@code ThreadLocal}: created by {@code factory} on first use, forgotten when the loop ends, so it
     * never pins a bundle's class loader. Call it on the loop thread only.
     *
     * @param key identity key, typically a private static object of the transport
     * @return the value, or {@code null} when the calling thread is not a loop thread (a group whose thread
     *         factory does not make {@link io.conduit.concurrent.EventExecutors#newThreadFactory(String) loop
     *         threads}); the caller then keeps the state elsewhere
     */
    static <T> T threadAttachment(Object key, java.util.function.Supplier<T> factory) {
        io.conduit.internal.concurrent.LoopThread t = io.conduit.internal.concurrent.LoopThread.current();
        return t == null ? null : t.attachment(key, factory);
    }
}
