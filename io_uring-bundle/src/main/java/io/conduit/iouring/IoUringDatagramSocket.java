package io.conduit.iouring;

import static io.conduit.iouring.NativeAbi.DATAGRAMS;
import static io.conduit.iouring.NativeAbi.ERRORS;
import static io.conduit.iouring.NativeAbi.SOCKETS;

import io.conduit.channel.ChannelOption;
import io.conduit.transport.spi.AddressErrors;
import io.conduit.transport.spi.DatagramLimits;
import io.conduit.transport.spi.IoDatagramSocket;
import io.conduit.transport.spi.IoEvents;
import io.conduit.transport.spi.UnixSocketFile;
import io.conduit.transport.spi.unix.LinuxDatagrams;
import io.conduit.transport.spi.unix.MsghdrArray;
import io.conduit.transport.spi.unix.NativeMemory;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketAddress;
import java.nio.ByteBuffer;

/**
 * A datagram socket on io_uring: UDP ({@code AF_INET6} dual-stack or {@code AF_INET}) or Unix-domain
 * ({@code AF_UNIX}, {@code SOCK_DGRAM}).
 *
 * <p><b>Receive.</b> {@link #receiveBatch} calls {@code recvmsg(2)} with {@code MSG_DONTWAIT | MSG_TRUNC} on the loop
 * thread, one datagram at a time, into the loop's {@value DatagramScratch#RECEIVE_BYTES}-byte slot
 * ({@link DatagramScratch}); the core copies each datagram out before the next call. The result is a datagram's real
 * length, so a longer one is reported as truncated, connected or not; the kernel names the sender either way. While
 * the core wants input, one {@code IORING_OP_POLL_ADD} for {@code POLLIN} waits after each batch (it completes at once
 * when datagrams are queued), and only its completion is the read readiness the core hears of: a read asked for is
 * never answered with nothing. So an idle socket holds no receive memory and the kernel holds none of the socket's:
 * the datagrams wait in the socket's own receive queue ({@code SO_RCVBUF}), in the order they came. While the core
 * does not want input (auto-read off), nothing is taken from that queue.
 *
 * <p>Not {@code IORING_OP_RECVMSG} requests in flight: each would need a slot of the largest datagram of its own for
 * as long as the socket reads, since a datagram the kernel has taken cannot be put back when it was longer than a
 * smaller slot.
 *
 * <p><b>Send.</b> {@link #send} calls {@code sendmsg(2)} with {@code MSG_DONTWAIT} at once, from the caller's
 * buffer (a heap buffer through the loop's copy), so a datagram that fails (no socket at a Unix path, too long, an
 * unreachable peer) fails its own write, as on epoll. A full socket answers {@code false}; one
 * {@code IORING_OP_POLL_ADD} for {@code POLLOUT} then waits, and its completion reports write readiness. Not
 * {@code IORING_OP_SENDMSG}: the kernel (6.18) retries a Unix datagram send that found the peer's queue full with
 * the payload already taken from the iterator, and sent an empty datagram; and its errors would come after the core
 * had reported the write done.
 *
 * <p><b>Close.</b> Deregistration cancels the polls; the descriptor closes once the last one completed
 * ({@link IoUringSocket}). A poll names no memory, and nothing is staged, so nothing waits to be sent.
 *
 * <p>Address rules, connect, disconnect, failed sends, multicast membership and {@code IP_MULTICAST_IF} are
 * {@link LinuxDatagrams}, shared with epoll; {@link #connectAway} and the options are plain system calls too, which
 * do not block. Unix-domain: the socket file a bind created is removed at {@link #close()}.
 *
 * <p>Threading: loop thread, as {@link io.conduit.transport.spi.IoSocket} says; {@link #close()} and options from
 * any thread.
 */
final class IoUringDatagramSocket extends IoUringSocket implements IoDatagramSocket {

    private static final int SOCK_DGRAM = NativeAbi.constant("SOCK_DGRAM");
    /** {@code recvmsg(2)} calls of every datagram socket (test hook: nothing is taken while input is not wanted) */
    static final java.util.concurrent.atomic.AtomicLong RECVMSG_CALLS = new java.util.concurrent.atomic.AtomicLong();

    // state (loop-confined)
    private boolean connected;
    /** the UDP address bound before {@link #connect} (port != 0), restored by {@link #disconnect} */
    private InetSocketAddress boundBeforeConnect;
    /** the connected peer, or {@code null}; written on the loop, read from any thread (remoteAddress) */
    private volatile SocketAddress remote;
    /** {@code IP_RECVORIGDSTADDR} is on; written by setOption (any thread), read on the loop */
    private volatile boolean recvOrigDstAddr;
    /** the socket file bind(2) created (AF_UNIX path only), removed at close */
    private volatile UnixSocketFile socketFile;

    // receiving (loop-confined)
    /** a {@code POLLIN} poll is in flight: it waits for the next datagram */
    private boolean readWaiting;
    /** -errno of a receive that failed after datagrams were handed out; the next {@link #receiveBatch} throws it */
    private int receiveError;

    // sending (loop-confined)
    /** a {@code POLLOUT} poll is in flight: the socket was full */
    private boolean writeWaiting;

    private IoUringDatagramSocket(int fd, int domain) {
        super(fd, domain, domain == NativeAbi.AF_UNIX ? UNIX_DGRAM : UDP);
    }

    /** @param unix {@code true} for {@code AF_UNIX}/{@code SOCK_DGRAM}, {@code false} for UDP */
    static IoUringDatagramSocket open(boolean unix) throws IOException {
        int type = SOCK_DGRAM | NativeAbi.SOCK_NONBLOCK | NativeAbi.SOCK_CLOEXEC;
        if (unix) {
            return new IoUringDatagramSocket(SOCKETS.openUnix(type), NativeAbi.AF_UNIX);
        }
        int[] fdAndDomain = SOCKETS.openInet(type);
        return new IoUringDatagramSocket(fdAndDomain[0], fdAndDomain[1]);
    }

    private boolean unix() {
        return domain == NativeAbi.AF_UNIX;
    }

    /** @return the loop's shared datagram memory; new memory while the socket is not registered with a loop */
    private DatagramScratch scratch() {
        IoUringIoHandler h = handler();
        return h != null ? h.datagramScratch() : new DatagramScratch();
    }

    // ------------------------------------------------------------------------------------ bind, close

    /** Binds; a Unix path's socket file is recorded so {@link #close()} removes it. */
    @Override
    public void bind(SocketAddress localAddress) throws IOException {
        if (!unix()) {
            super.bind(localAddress);
            return;
        }
        socketFile = UnixSocketFile.bind(localAddress, () -> {
            super.bind(localAddress);
            return localAddress();
        });
    }

    /** Removes the Unix socket file this socket bound (if it is still that file), then closes. */
    @Override
    public void close() throws IOException {
        UnixSocketFile f = socketFile;
        socketFile = null;
        if (f != null && isOpen()) {
            f.deleteIfStillOurs(); // before close(2): the path still holds our file, no other bind can take it
        }
        super.close();
    }

    // ------------------------------------------------------------------------------------------ receiving

    /** Receives one datagram (the core calls this only when it does not batch; this socket always batches). */
    @Override
    public SocketAddress receive(ByteBuffer dst) throws IOException {
        SocketAddress[] sender = new SocketAddress[1];
        int n = receiveBatch(1, (data, from, recipient, truncated) -> {
            int length = Math.min(data.remaining(), dst.remaining());
            dst.put(data.limit(data.position() + length));
            sender[0] = from;
        });
        return n > 0 ? sender[0] : null;
    }

    /**
     * Receives up to {@code maxDatagrams} datagrams with {@code recvmsg(2)}, one at a time, handing each to
     * {@code sink} at once; then a {@code POLLIN} poll waits for the next one (it completes at once when more are
     * queued). A failed receive is thrown when it is the first one; after datagrams it waits for the next call.
     */
    @Override
    public int receiveBatch(int maxDatagrams, DatagramSink sink) throws IOException {
        int fd = liveFd("recvmsg");
        IoUringIoHandler h = handler();
        if (h == null) {
            return 0; // not registered: no loop to receive on
        }
        int n = 0;
        try {
            if (receiveError != 0) {
                int r = receiveError;
                receiveError = 0;
                throw ERRORS.newIoException("recvmsg", r);
            }
            DatagramScratch scratch = h.datagramScratch();
            MsghdrArray messages = scratch.messages();
            NativeMemory slot = scratch.receiveSlot();
            int max = Math.max(1, maxDatagrams);
            boolean origDst = recvOrigDstAddr;
            SocketAddress peer = connected ? remote : null;
            while (n < max) {
                messages.setForReceive(DatagramScratch.RECEIVE, slot.address(), DatagramScratch.RECEIVE_BYTES);
                int r;
                do {
                    RECVMSG_CALLS.incrementAndGet();
                    r = Native.recvmsg(fd, messages.messageAddress(DatagramScratch.RECEIVE),
                            NativeAbi.MSG_DONTWAIT | NativeAbi.MSG_TRUNC);
                } while (ERRORS.isInterrupted(r));
                if (r < 0) {
                    if (ERRORS.isAgain(r)) {
                        break;
                    }
                    if (n == 0) {
                        throw ERRORS.newIoException("recvmsg", r);
                    }
                    receiveError = r; // the next round hands it to the core (dispatchReady)
                    h.readyAgain(this);
                    break;
                }
                ByteBuffer data = slot.buffer().slice(0, Math.min(r, DatagramScratch.RECEIVE_BYTES));
                SocketAddress from = LinuxDatagrams.sender(messages.sender(DatagramScratch.RECEIVE), peer, unix());
                sink.datagram(data, from, origDst ? messages.recipient(DatagramScratch.RECEIVE) : null,
                        r > DatagramScratch.RECEIVE_BYTES);
                n++;
            }
        } finally {
            waitForInput();
        }
        return n;
    }

    /**
     * Submits one {@code IORING_OP_POLL_ADD} for {@code POLLIN}, unless one is in flight or input is not wanted. The
     * core hears of input only through its completion ({@link #onCompletion}), so a read it asked for is never
     * answered with nothing.
     */
    private void waitForInput() {
        if (readWaiting || !wants(OP_READ) || !canSubmit()) {
            return;
        }
        readWaiting = submitPoll(REQ_RECV, NativeAbi.POLLIN);
        if (!readWaiting) {
            handler().readyAgain(this); // the SQ is full: the next round tries again, after a submission
        }
    }

    /** @return {@code true}: an {@code IORING_OP_POLL_ADD} for {@code events} was submitted; {@code false}: SQ full */
    private boolean submitPoll(int op, int events) {
        try {
            submit(op, NativeAbi.IORING_OP_POLL_ADD, 0, 0, 0, events, 0);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    // -------------------------------------------------------------------------------------------- sending

    /**
     * Sends {@code src} as one datagram with {@code sendmsg(2)} and {@code MSG_DONTWAIT}, from {@code src} itself
     * when it is direct, else from a copy.
     *
     * @return {@code false} when the socket is full (nothing was sent): an {@code IORING_OP_POLL_ADD} for
     *         {@code POLLOUT} is then in flight, and its completion reports write readiness
     */
    @Override
    public boolean send(ByteBuffer src, SocketAddress target) throws IOException {
        if (target != null) {
            checkTarget(target);
            if (connected) {
                target = null; // to the peer
            }
        } else if (!connected) {
            throw AddressErrors.noRecipient();
        }
        int fd = liveFd("sendmsg");
        int length = src.remaining();
        SocketAddress recipient = target != null ? target : remote;
        if (!unix() && length > DatagramLimits.maxUdpPayloadBytes(recipient)) {
            throw ERRORS.newUdpDatagramTooLongException("sendmsg", length, recipient);
        }
        if (writeWaiting) {
            return false; // the socket was full and has not said otherwise yet
        }
        DatagramScratch scratch = scratch();
        long address = 0;
        if (length > 0) {
            if (src.isDirect()) {
                address = Native.addressOf(src) + src.position();
            } else {
                scratch.bounce(length).put(src.duplicate());
                address = scratch.bounceAddress();
            }
        }
        MsghdrArray messages = scratch.messages();
        messages.setForSend(DatagramScratch.SEND, address, length, target, ipv6());
        int n;
        do {
            n = Native.sendmsg(fd, messages.messageAddress(DatagramScratch.SEND),
                    NativeAbi.MSG_DONTWAIT | NativeAbi.MSG_NOSIGNAL);
        } while (ERRORS.isInterrupted(n));
        if (n < 0) {
            if (ERRORS.isAgain(n) || n == -NativeAbi.ENOBUFS) {
                waitForRoom();
                return false;
            }
            throw DATAGRAMS.failedSend("sendmsg", n, fd, unix(), length, recipient);
        }
        src.position(src.position() + length);
        return true;
    }

    /**
     * Submits one {@code IORING_OP_POLL_ADD} for {@code POLLOUT}, unless one is in flight. When the SQ is full the core
     * retries the write, and the next full socket submits it.
     */
    private void waitForRoom() {
        if (!writeWaiting && canSubmit()) {
            writeWaiting = submitPoll(REQ_SEND, NativeAbi.POLLOUT);
        }
    }

    /** The batch form of {@link #send}: sends in order until the socket is full or one datagram fails. */
    @Override
    public int sendBatch(ByteBuffer[] srcs, SocketAddress[] targets, int count) throws IOException {
        return LinuxDatagrams.sendEach(this, srcs, targets, count);
    }

    /** The datagram address rule ({@link LinuxDatagrams#checkTarget}). */
    private void checkTarget(SocketAddress target) {
        LinuxDatagrams.checkTarget(target, addressKind(), connected, remote);
    }

    // ------------------------------------------------------------------------------------- association

    @Override
    public void connect(SocketAddress remoteAddress) throws IOException {
        LinuxDatagrams.checkConnect(remoteAddress, addressKind(), connected, remote);
        SocketAddress bound = localAddress();
        boundBeforeConnect = bound instanceof InetSocketAddress i && i.getPort() != 0 ? i : null;
        connect0(remoteAddress);
        connected = true;
        remote = peerAddress();
    }

    /**
     * {@code connect(2)} to {@code sink} without entering the connected mode: receives keep reporting each
     * datagram's sender (the datagrams queued in the kernel stay where they are), and sends keep their targets. The
     * kernel then matches this socket only for datagrams from {@code sink}. UDP only.
     */
    @Override
    public boolean connectAway(SocketAddress sink, DatagramSink queued) throws IOException {
        if (unix()) {
            return false;
        }
        LinuxDatagrams.checkConnect(sink, addressKind(), connected, remote);
        connect0(sink);
        return true;
    }

    private void connect0(SocketAddress address) throws IOException {
        DATAGRAMS.connect(this::liveFd, address, ipv6());
    }

    /**
     * {@code connect(2)} to an {@code AF_UNSPEC} address dissolves the association; a UDP socket that had a port
     * before {@link #connect} is bound to it again when the kernel dropped it (as epoll's does).
     */
    @Override
    public void disconnect() throws IOException {
        DATAGRAMS.disconnect(this::liveFd);
        connected = false;
        remote = null;
        InetSocketAddress before = boundBeforeConnect;
        boundBeforeConnect = null;
        if (before != null && localAddress() instanceof InetSocketAddress now && now.getPort() == 0) {
            SOCKETS.bind(liveFd("bind"), domain, addressKind(), before);
        }
    }

    @Override
    public boolean isConnected() {
        return connected;
    }

    @Override
    public SocketAddress remoteAddress() {
        return remote;
    }

    /** The address of a UDP socket, which the kernel may change at connect; not cached. */
    @Override
    public SocketAddress localAddress() {
        return isOpen() ? SOCKETS.localAddress(fd()) : null;
    }

    // --------------------------------------------------------------------------------------- multicast

    /** Joins by interface index ({@link io.conduit.transport.spi.unix.LinuxMulticast}); joining twice is no error. */
    @Override
    public void joinGroup(InetAddress group, NetworkInterface networkInterface) throws IOException {
        membership(group, networkInterface, true);
    }

    /** The drop counterpart of {@link #joinGroup}; leaving a group this socket is not in has no effect. */
    @Override
    public void leaveGroup(InetAddress group, NetworkInterface networkInterface) throws IOException {
        membership(group, networkInterface, false);
    }

    private void membership(InetAddress group, NetworkInterface nif, boolean join) throws IOException {
        DATAGRAMS.membership(this::liveFd, unix(), ipv6(), group, nif, join);
    }

    // -------------------------------------------------------------------------------------------- options

    @Override
    public <T> boolean setOption(ChannelOption<T> option, T value) throws IOException {
        if (option == ChannelOption.IP_MULTICAST_IF) {
            return DATAGRAMS.setMulticastInterface(this::liveFd, unix(), ipv6(), (NetworkInterface) value);
        }
        boolean applied = super.setOption(option, value);
        if (applied && option == ChannelOption.IP_RECVORIGDSTADDR) {
            recvOrigDstAddr = (Boolean) value;
        }
        return applied;
    }

    /** {@code IP_MULTICAST_IF} is supported on UDP sockets although it reads {@code null} while not chosen. */
    @Override
    public boolean supportsOption(ChannelOption<?> option) throws IOException {
        return option == ChannelOption.IP_MULTICAST_IF ? !unix() && isOpen() : super.supportsOption(option);
    }

    /** @return for {@code IP_MULTICAST_IF}: the chosen interface, or {@code null} while the kernel chooses */
    @Override
    @SuppressWarnings("unchecked")
    public <T> T getOption(ChannelOption<T> option) throws IOException {
        if (option == ChannelOption.IP_MULTICAST_IF) {
            return (T) DATAGRAMS.multicastInterface(this::liveFd, unix(), ipv6());
        }
        return super.getOption(option);
    }

    // ------------------------------------------------------------------------- completions, readiness

    /**
     * A poll completed: {@code POLLIN}, a datagram waits; {@code POLLOUT}, the socket has room (either: or an error the
     * next call meets). The core hears it when it still wants it.
     */
    @Override
    void onCompletion(int op, int res, int flags) {
        if (op == REQ_RECV) {
            readWaiting = false;
        } else if (op == REQ_SEND) {
            writeWaiting = false;
        } else {
            return;
        }
        IoEvents e = liveEvents();
        if (res == -NativeAbi.ECANCELED || e == null) {
            return;
        }
        if (op == REQ_RECV && wants(OP_READ)) {
            e.readReady(); // the core receives, and the receive waits again
        } else if (op == REQ_SEND && wants(OP_WRITE)) {
            e.writeReady();
        }
    }

    /** New read interest: a {@code POLLIN} poll waits (it completes at once when a datagram is queued). */
    @Override
    void interestChanged(int old, int now) {
        int added = now & ~old;
        if ((added & OP_READ) != 0) {
            waitForInput();
        }
        if ((added & OP_WRITE) != 0 && !writeWaiting) {
            handler().readyAgain(this);
        }
    }

    @Override
    void dispatchReady() {
        IoEvents e = liveEvents();
        if (e == null) {
            return;
        }
        if (wants(OP_WRITE) && !writeWaiting) {
            e.writeReady();
        }
        if (wants(OP_READ) && liveEvents() != null) {
            if (receiveError != 0) {
                e.readReady(); // the core meets the error of a receive after datagrams
            } else {
                waitForInput(); // the SQ was full
            }
        }
    }

    @Override
    void cancelInFlight() {
        if (readWaiting) {
            cancel(REQ_RECV);
        }
        if (writeWaiting) {
            cancel(REQ_SEND);
        }
    }

    @Override
    void abort() {
        cancelInFlight();
    }

    @Override
    void released() {
        receiveError = 0;
    }
}
