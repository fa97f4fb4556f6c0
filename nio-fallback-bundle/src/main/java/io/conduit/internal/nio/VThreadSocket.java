package io.conduit.internal.nio;

import io.conduit.channel.ChannelOption;
import io.conduit.concurrent.EventLoop;
import io.conduit.transport.spi.IoEvents;
import io.conduit.transport.spi.IoSocket;

import java.io.IOException;
import java.net.SocketAddress;
import java.nio.channels.NetworkChannel;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Base of the {@code nio-vthread} sockets: a <em>blocking</em> {@code java.nio} channel whose blocking calls run
 * on virtual threads, turned back into the readiness model of {@link IoSocket} so that the shared channel core
 * (and every handler) behaves exactly as with selectors. Virtual threads stage data in small buffers and post
 * "ready" tasks to the channel's event loop; the loop thread consumes staged data with non-blocking calls.
 *
 * <p>Blocked virtual threads wait in {@code java.nio} reads/writes/accepts (which unmount them from their
 * carrier thread on a 21+ JVM) or on {@link #lock}'s conditions (a {@link ReentrantLock}, never
 * {@code synchronized}, so a waiting virtual thread does not pin its carrier).
 *
 * <p>Threading: {@link #lock} guards the staging state of subclasses; {@link #interest} and {@link #open} are
 * volatile (written by the loop); {@code deliver*} tasks run on the loop.
 */
abstract class VThreadSocket implements IoSocket {

    static final AtomicInteger IDS = new AtomicInteger();

    final NetworkChannel channel;
    final ReentrantLock lock = new ReentrantLock();
    /** Signalled when the loop consumed staged input, or interest/open changed. */
    final Condition inputWanted = lock.newCondition();
    /** Signalled when the loop staged output, asked for a shutdown, or open changed. */
    final Condition outputStaged = lock.newCondition();
    final int socketId = IDS.incrementAndGet();

    volatile int interest;            // IoSocket.OP_* bits, written by the loop
    volatile boolean open = true;     // false once close() began
    private volatile boolean reporting; // true while registered: deliver* tasks report to events
    EventLoop loop;                   // set at register (loop thread), read by virtual threads after a post
    IoEvents events;                  // same
    private VThreadIoHandler handler; // loop-confined

    VThreadSocket(NetworkChannel channel) {
        this.channel = channel;
    }

    @Override
    public void register(EventLoop loop, IoEvents events) throws IOException {
        this.handler = VThreadIoHandler.current();
        this.loop = loop;
        this.events = events;
        handler.add(events);
        reporting = true;
        registered();
    }

    /** Called on the loop after registration: start the virtual threads that are needed now. */
    abstract void registered();

    @Override
    public void deregister(Runnable whenReleased) {
        reporting = false;
        if (handler != null) {
            handler.remove(events);
        }
        if (whenReleased != null) {
            whenReleased.run(); // no poller holds the socket
        }
    }

    boolean reporting() {
        return reporting && open;
    }

    @Override
    public void interestOps(int ops) {
        int old = interest;
        interest = ops;
        lock.lock();
        try {
            inputWanted.signalAll();
        } finally {
            lock.unlock();
        }
        int added = ops & ~old;
        if ((added & OP_READ) != 0 && hasInput()) {
            post(this::deliverReadable);
        }
        if ((added & OP_WRITE) != 0 && hasRoom()) {
            post(this::deliverWritable);
        }
        if ((added & OP_CONNECT) != 0 && connectDone()) {
            post(this::deliverConnectable);
        }
    }

    /** @return {@code true} when staged input, end-of-stream or an error waits for the loop (under no lock) */
    abstract boolean hasInput();

    /** @return {@code true} when output can be staged now */
    boolean hasRoom() {
        return false;
    }

    boolean connectDone() {
        return false;
    }

    /** Posts {@code task} to the loop; a loop that shut down has closed the channel already. */
    void post(Runnable task) {
        EventLoop l = loop;
        if (l == null) {
            return;
        }
        try {
            l.execute(task);
        } catch (RejectedExecutionException e) {
            // the loop is gone; its shutdown closed this socket's channel
        }
    }

    /** Loop: level-triggered read readiness; re-posts itself while input remains and is wanted. */
    void deliverReadable() {
        if (!reporting() || (interest & OP_READ) == 0 || !hasInput()) {
            return;
        }
        events.readReady();
        if (reporting() && (interest & OP_READ) != 0 && hasInput()) {
            post(this::deliverReadable);
        }
    }

    void deliverWritable() {
        if (reporting() && (interest & OP_WRITE) != 0 && hasRoom()) {
            events.writeReady();
        }
    }

    void deliverConnectable() {
        if (reporting() && (interest & OP_CONNECT) != 0) {
            events.connectReady();
        }
    }

    void await(java.util.concurrent.locks.Condition condition) {
        try {
            condition.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            open = false;
        }
    }

    @Override
    public boolean isOpen() {
        return open && channel.isOpen();
    }

    @Override
    public void close() throws IOException {
        open = false;
        lock.lock();
        try {
            inputWanted.signalAll();
            outputStaged.signalAll();
        } finally {
            lock.unlock();
        }
        channel.close(); // blocked reads/writes/accepts end with AsynchronousCloseException
    }

    @Override
    public void bind(SocketAddress localAddress) throws IOException {
        channel.bind(localAddress);
    }

    @Override
    public SocketAddress localAddress() {
        try {
            return channel.getLocalAddress();
        } catch (IOException e) {
            return null;
        }
    }

    @Override
    public <T> boolean setOption(ChannelOption<T> option, T value) throws IOException {
        return NioSocket.setOption(channel, option, value);
    }

    @Override
    public <T> T getOption(ChannelOption<T> option) throws IOException {
        return NioSocket.getOption(channel, option);
    }

    @Override
    public String toString() {
        return channel.toString();
    }
}
