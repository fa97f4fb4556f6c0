package io.conduit.iouring;

import static io.conduit.iouring.NativeAbi.ERRORS;

import io.conduit.channel.ChannelOption;
import io.conduit.transport.spi.IoEvents;
import io.conduit.transport.spi.IoServerSocket;
import io.conduit.transport.spi.IoStreamSocket;
import io.conduit.transport.spi.IoTransportSupport;
import io.conduit.transport.spi.UnixSocketFile;
import io.conduit.transport.spi.unix.NativeIoException;

import java.io.IOException;
import java.net.SocketAddress;
import java.util.Arrays;

/**
 * A listening TCP or Unix-domain stream socket: {@code bind(2)} + {@code listen(2)}, then {@code IORING_OP_ACCEPT} with
 * {@code SOCK_NONBLOCK | SOCK_CLOEXEC}, multishot ({@code IORING_ACCEPT_MULTISHOT}, Linux 5.19) where the kernel
 * has it: one request yields a completion per connection until it ends. A kernel that rejects multishot with
 * {@code EINVAL} gets one request per connection from then on.
 *
 * <p>Accepted descriptors wait in a queue that {@link #accept()} empties. The request is armed while the core's read
 * interest is on and cancelled when it goes off (the core pauses accepting, e.g. under {@code EMFILE}), so the queue
 * holds only what arrived meanwhile. A failed completion ({@code EMFILE}, {@code ENFILE}) is thrown by the next
 * {@link #accept()} as an {@link IOException} naming the error; the core then backs off without closing the
 * listener. Before a close that keeps the connections, {@link #acceptQueued()} also takes with {@code accept4(2)}
 * what the kernel queued and no completion reported yet. A TCP listener has {@code SO_REUSEADDR} on, as with
 * {@code java.nio}. A Unix-domain listener bound to a path removes its socket file when it closes
 * ({@link UnixSocketFile}).
 *
 * <p>Threading as {@link io.conduit.transport.spi.IoSocket}.
 */
final class IoUringServerSocket extends IoUringSocket implements IoServerSocket {

    static {
        // Load what accepting needs now: under EMFILE a class loader cannot open its jar.
        for (Class<?> c : new Class<?>[] {IoUringStreamSocket.class, NativeIoException.class,
                io.conduit.channel.PeerCredentials.class}) {
            try {
                Class.forName(c.getName(), true, c.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /** multishot accept; turned off for good when the kernel rejects it */
    private static volatile boolean multishot = true;

    /** the socket file bind(2) created (AF_UNIX only), removed at close; written at bind, read at close */
    private volatile UnixSocketFile socketFile;
    // loop-confined
    private int[] accepted = new int[16];
    private int acceptedHead;
    private int acceptedCount;
    private boolean listening;
    private boolean accepting;
    private boolean acceptingMultishot;
    /** -errno of a failed accept, thrown by the next {@link #accept()} */
    private int acceptError;

    /** A new listener: Unix-domain when {@code unix}, else TCP. */
    static IoUringServerSocket open(boolean unix) throws IOException {
        int[] fdAndDomain = IoUringSocket.openStream(unix);
        IoUringServerSocket s = new IoUringServerSocket(fdAndDomain[0], fdAndDomain[1]);
        if (!unix) {
            Native.setsockoptInt(s.fd(), NativeAbi.SOL_SOCKET, NativeAbi.SO_REUSEADDR, 1);
        }
        return s;
    }

    private IoUringServerSocket(int fd, int domain) {
        super(fd, domain, domain == NativeAbi.AF_UNIX ? UNIX_SERVER : TCP_SERVER);
    }

    @Override
    public void bind(SocketAddress localAddress, int backlog) throws IOException {
        socketFile = UnixSocketFile.bind(localAddress, () -> {
            super.bind(localAddress);
            return localAddress();
        });
        NativeAbi.SOCKETS.listen(liveFd("listen"), IoTransportSupport.listenBacklog(backlog, 0));
        listening = true;
        if (wants(OP_READ)) {
            arm();
        }
    }

    @Override
    public void bind(SocketAddress localAddress) throws IOException {
        bind(localAddress, 0);
    }

    @Override
    public IoStreamSocket accept() throws IOException {
        liveFd("accept");
        if (acceptedCount > 0) {
            int fd = accepted[acceptedHead];
            acceptedHead = (acceptedHead + 1) % accepted.length;
            acceptedCount--;
            return new IoUringStreamSocket(fd, domain, true);
        }
        if (acceptError != 0) {
            int e = acceptError;
            acceptError = 0;
            throw ERRORS.newIoException("accept", e);
        }
        arm();
        return null;
    }

    /**
     * Before a close: the accepted queue, with the accepts that completed but were not reaped yet (the loop was busy
     * when the kernel accepted them: {@link IoUringRing#takeCompleted}), then {@code accept4(2)} for what the kernel
     * still queues. Each of them would be reset by the close that follows.
     */
    @Override
    public IoStreamSocket acceptQueued() throws IOException {
        if (acceptedCount == 0 && accepting && canSubmit()) {
            handler().ring().takeCompleted(userData(REQ_ACCEPT), this::queue);
        }
        IoStreamSocket taken = accept();
        if (taken != null) {
            return taken;
        }
        int fd = liveFd("accept4");
        for (;;) {
            int child = Native.accept4(fd, NativeAbi.SOCK_NONBLOCK | NativeAbi.SOCK_CLOEXEC);
            if (child >= 0) {
                return new IoUringStreamSocket(child, domain, true);
            }
            if (child == -NativeAbi.EAGAIN) {
                return null;
            }
            if (child != -NativeAbi.EINTR && child != -NativeAbi.ECONNABORTED) {
                throw ERRORS.newIoException("accept4", child);
            }
        }
    }

    /** Submits the accept request unless it is in flight or the listener cannot take connections now. */
    private void arm() throws IOException {
        if (accepting || acceptError != 0 || !canSubmit() || !wants(OP_READ) || !listening) {
            return;
        }
        boolean multi = multishot;
        submit(REQ_ACCEPT, NativeAbi.IORING_OP_ACCEPT, 0, 0, 0, NativeAbi.SOCK_NONBLOCK | NativeAbi.SOCK_CLOEXEC,
                multi ? NativeAbi.IORING_ACCEPT_MULTISHOT : 0);
        accepting = true;
        acceptingMultishot = multi;
    }

    private void queue(int fd) {
        if (acceptedCount == accepted.length) {
            int[] bigger = new int[accepted.length * 2];
            for (int i = 0; i < acceptedCount; i++) {
                bigger[i] = accepted[(acceptedHead + i) % accepted.length];
            }
            accepted = bigger;
            acceptedHead = 0;
        }
        accepted[(acceptedHead + acceptedCount) % accepted.length] = fd;
        acceptedCount++;
    }

    @Override
    void onCompletion(int op, int res, int flags) {
        if (op != REQ_ACCEPT) {
            return;
        }
        boolean more = (flags & NativeAbi.IORING_CQE_F_MORE) != 0;
        if (!more) {
            accepting = false;
        }
        if (res >= 0) {
            if (isOpen() && liveEvents() != null) {
                queue(res);
            } else {
                Native.close(res);
            }
        } else if (res == -NativeAbi.EINVAL && acceptingMultishot) {
            multishot = false; // a kernel before 5.19
        } else if (res != -NativeAbi.ECANCELED && res != -NativeAbi.ECONNABORTED && res != -NativeAbi.EINTR
                && res != -NativeAbi.EAGAIN) {
            acceptError = res;
        }
        IoEvents e = liveEvents();
        if (e == null) {
            return;
        }
        if (wants(OP_READ) && (acceptedCount > 0 || acceptError != 0)) {
            e.readReady();
            if (wants(OP_READ) && acceptedCount > 0 && liveEvents() != null) {
                handler().readyAgain(this);
            }
        }
        rearm();
    }

    private void rearm() {
        try {
            arm();
        } catch (IOException ex) {
            acceptError = -NativeAbi.EBUSY;
        }
    }

    @Override
    void interestChanged(int old, int now) {
        boolean was = (old & OP_READ) != 0;
        boolean is = (now & OP_READ) != 0;
        if (is && !was) {
            if (acceptedCount > 0 || acceptError != 0) {
                handler().readyAgain(this);
            }
            rearm();
        } else if (was && !is && accepting) {
            cancel(REQ_ACCEPT); // paused: the kernel stops accepting for us
        }
    }

    @Override
    void dispatchReady() {
        IoEvents e = liveEvents();
        if (e != null && wants(OP_READ) && (acceptedCount > 0 || acceptError != 0)) {
            e.readReady();
            if (wants(OP_READ) && acceptedCount > 0 && liveEvents() != null) {
                handler().readyAgain(this);
            }
        }
    }

    @Override
    void cancelInFlight() {
        if (accepting) {
            cancel(REQ_ACCEPT);
        }
    }

    @Override
    void abort() {
        cancelInFlight();
    }

    /**
     * Removes the Unix socket file this listener bound (if it is still that file), closes the accepted descriptors
     * nobody took, then the listener.
     */
    @Override
    public void close() throws IOException {
        UnixSocketFile f = socketFile;
        socketFile = null;
        if (f != null && isOpen()) {
            f.deleteIfStillOurs(); // while the listener holds the path, no other bind can take it
        }
        while (acceptedCount > 0) {
            Native.close(accepted[acceptedHead]);
            acceptedHead = (acceptedHead + 1) % accepted.length;
            acceptedCount--;
        }
        Arrays.fill(accepted, -1);
        super.close();
    }

    @Override
    public SocketAddress remoteAddress() {
        return null;
    }
}
