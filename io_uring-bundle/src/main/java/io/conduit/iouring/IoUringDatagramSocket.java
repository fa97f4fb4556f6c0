package io.conduit.iouring;

import static io.conduit.iouring.NativeAbi.ERRORS;
import static io.conduit.iouring.NativeAbi.SOCKADDR;
import static io.conduit.iouring.NativeAbi.SOCKETS;

import io.conduit.channel.ChannelOption;
import io.conduit.transport.spi.AddressErrors;
import io.conduit.transport.spi.DatagramLimits;
import io.conduit.transport.spi.IoDatagramSocket;
import io.conduit.transport.spi.IoEvents;
import io.conduit.transport.spi.UnixSocketFile;
import io.conduit.transport.spi.unix.NativeMemory;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;

/**
 * A datagram socket on io_uring: UDP ({@code AF_INET6} dual-stack or {@code AF_INET}) or Unix-domain
 * ({@code AF_UNIX}, {@code SOCK_DGRAM}). Connected or not, it receives the same way (the kernel fills in the sender
 * either way).
 *
 * <p><b>Receive.</b> {@value #RECEIVES} {@code IORING_OP_RECVMSG} requests are in flight while the core wants input,
 * each into its own slot: a {@code msghdr}, an {@code iovec}, a {@code sockaddr_storage} for the sender, a control
 * area for {@code IP_ORIGDSTADDR} and {@value #SLOT_BYTES} bytes of data, all the socket's until the completion. A
 * completed slot joins a queue in completion order (the order the kernel took the datagrams from the socket);
 * {@link #receiveBatch} hands the queue out and submits the slots again. The receive asks for {@code MSG_TRUNC}, so
 * the result is the datagram's real length, and a longer datagram is reported as truncated, connected or not. The
 * slots are allocated on the first receive.
 *
 * <p><b>Send.</b> {@link #send} calls {@code sendmsg(2)} with {@code MSG_DONTWAIT} at once, from the caller's
 * buffer (a heap buffer through a copy), so a datagram that fails (no socket at a Unix path, too long, an
 * unreachable peer) fails its own write, as on epoll. A full socket answers {@code false}; one
 * {@code IORING_OP_POLL_ADD} for {@code POLLOUT} then waits, and its completion reports write readiness. Not
 * {@code IORING_OP_SENDMSG}: the kernel (6.18) retries a Unix datagram send that found the peer's queue full with
 * the payload already taken from the iterator, and sent an empty datagram; and its errors would come after the core
 * had reported the write done.
 *
 * <p><b>Close.</b> Deregistration cancels the receives and the poll; the descriptor closes once the last request
 * completed ({@link IoUringSocket}), and the slots stay reachable until then. Nothing is staged, so nothing waits to
 * be sent.
 *
 * <p>Connect, disconnect, {@link #connectAway}, multicast membership and options are plain system calls, which do
 * not block. Unix-domain: the socket file a bind created is removed at {@link #close()}.
 *
 * <p>Threading: loop thread, as {@link io.conduit.transport.spi.IoSocket} says; {@link #close()} and options from
 * any thread.
 */
final class IoUringDatagramSocket extends IoUringSocket implements IoDatagramSocket {

    /** receives in flight per socket */
    static final int RECEIVES = 4;
    /** bytes of one receive slot: what the testsuite's {@code RECEIVE_SLOT_BYTES} says a datagram may have */
    static final int SLOT_BYTES = 65_536;
    /** bytes of the copy a heap datagram is sent from (grown for a longer one) */
    private static final int BOUNCE_BYTES = 64 * 1024;
    /** requests, in user_data: the receive of slot {@code i} is {@code REQ_RECV_SLOT + i} (the POLLOUT poll: REQ_SEND) */
    private static final int REQ_RECV_SLOT = 16;

    private static final int SOCK_DGRAM = NativeAbi.constant("SOCK_DGRAM");
    private static final int SO_SNDBUF = NativeAbi.constant("SO_SNDBUF");
    /** the address of an unnamed Unix socket */
    private static final SocketAddress UNNAMED = UnixDomainSocketAddress.of("");

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
    private Messages receives;
    private NativeMemory receiveData;
    private final boolean[] receiving = new boolean[RECEIVES];
    /** completed slots, in completion order: a ring of slot indices */
    private final int[] completed = new int[RECEIVES];
    private int completedHead;
    private int completedCount;
    /** result of each completed slot: bytes (the real length) or -errno */
    private final int[] result = new int[RECEIVES];

    // sending (loop-confined)
    /** the one message header of {@link #send} */
    private Messages sendHeader;
    /** the copy of a heap datagram */
    private ByteBuffer bounce;
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

    /**
     * Submits a receive for every idle slot, unless the socket cannot submit. A slot whose datagram waits in the
     * queue is not idle.
     */
    private void submitReceives() {
        if (!canSubmit()) {
            return;
        }
        if (receives == null) {
            receives = new Messages(RECEIVES, true);
            receiveData = NativeMemory.allocate(RECEIVES * SLOT_BYTES, Native::addressOf);
        }
        for (int i = 0; i < RECEIVES; i++) {
            if (!receiving[i] && !queued(i)) {
                submitReceive(i);
            }
        }
    }

    private void submitReceive(int i) {
        receives.set(i, receiveData.address() + (long) i * SLOT_BYTES, SLOT_BYTES, SOCKADDR.storageSize());
        try {
            submit(REQ_RECV_SLOT + i, NativeAbi.IORING_OP_RECVMSG, receives.header(i), 1, 0, NativeAbi.MSG_TRUNC,
                    0);
            receiving[i] = true;
        } catch (IOException e) {
            // the SQ is full: the next readiness round or completion submits it
        }
    }

    private boolean queued(int slot) {
        for (int k = 0; k < completedCount; k++) {
            if (completed[(completedHead + k) % RECEIVES] == slot) {
                return true;
            }
        }
        return false;
    }

    private void received(int slot, int res) {
        receiving[slot] = false;
        if (liveEvents() == null || res == -NativeAbi.ECANCELED) {
            return; // deregistered or cancelled: nobody reads it any more
        }
        if (res == -NativeAbi.EAGAIN || res == -NativeAbi.EINTR) {
            if (wants(OP_READ)) {
                submitReceive(slot);
            }
            return;
        }
        result[slot] = res;
        completed[(completedHead + completedCount) % RECEIVES] = slot;
        completedCount++;
        IoEvents e = liveEvents();
        if (e != null && wants(OP_READ)) {
            e.readReady();
            if (completedCount > 0 && wants(OP_READ) && liveEvents() != null) {
                handler().readyAgain(this);
            }
        }
    }

    /** Takes the oldest completed slot off the queue. */
    private int takeCompleted() {
        int slot = completed[completedHead];
        completedHead = (completedHead + 1) % RECEIVES;
        completedCount--;
        return slot;
    }

    /** Receives one datagram (the core calls this only when it does not batch; this socket always batches). */
    @Override
    public SocketAddress receive(ByteBuffer dst) throws IOException {
        liveFd("recvmsg");
        SocketAddress[] sender = new SocketAddress[1];
        int n = receiveBatch(1, (data, from, recipient, truncated) -> {
            int length = Math.min(data.remaining(), dst.remaining());
            dst.put(data.limit(data.position() + length));
            sender[0] = from;
        });
        return n > 0 ? sender[0] : null;
    }

    /**
     * Hands the completed receives to {@code sink} in completion order and submits their slots again. A failed
     * receive is thrown when it is the first one handed out; after datagrams it waits for the next call.
     */
    @Override
    public int receiveBatch(int maxDatagrams, DatagramSink sink) throws IOException {
        liveFd("recvmsg");
        int max = Math.max(1, maxDatagrams);
        int n = 0;
        boolean origDst = recvOrigDstAddr;
        try {
            while (n < max && completedCount > 0) {
                int slot = completed[completedHead];
                int res = result[slot];
                if (res < 0) {
                    if (n > 0) {
                        break;
                    }
                    takeCompleted();
                    throw ERRORS.newIoException("recvmsg", res);
                }
                takeCompleted();
                int length = Math.min(res, SLOT_BYTES);
                ByteBuffer data = receiveData.buffer().slice(slot * SLOT_BYTES, length);
                SocketAddress from = sender(receives.sender(slot));
                sink.datagram(data, from, origDst ? receives.recipient(slot) : null, res > SLOT_BYTES);
                n++;
            }
        } finally {
            if (wants(OP_READ)) {
                submitReceives(); // the slots handed out, and any the SQ could not take before
            }
        }
        return n;
    }

    /**
     * @return {@code decoded}; for a connected socket whose kernel named no sender, the peer; for a datagram from
     *         an unnamed Unix socket, the empty path, as unnamed Unix sockets are reported everywhere
     */
    private SocketAddress sender(SocketAddress decoded) {
        if (decoded != null) {
            return decoded;
        }
        return connected && remote != null ? remote : unix() ? UNNAMED : null;
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
        if (sendHeader == null) {
            sendHeader = new Messages(1, false);
        }
        long address = 0;
        if (length > 0) {
            if (src.isDirect()) {
                address = Native.addressOf(src) + src.position();
            } else {
                if (bounce == null || bounce.capacity() < length) {
                    bounce = ByteBuffer.allocateDirect(Math.max(BOUNCE_BYTES, length));
                }
                bounce.clear();
                bounce.put(src.duplicate());
                address = Native.addressOf(bounce);
            }
        }
        sendHeader.setForSend(0, address, length, target, ipv6());
        int n;
        do {
            n = Native.sendmsg(fd, sendHeader.header(0), NativeAbi.MSG_DONTWAIT | NativeAbi.MSG_NOSIGNAL);
        } while (ERRORS.isInterrupted(n));
        if (n < 0) {
            if (ERRORS.isAgain(n) || n == -NativeAbi.ENOBUFS) {
                waitForRoom();
                return false;
            }
            throw failedSend(n, length, recipient);
        }
        src.position(src.position() + length);
        return true;
    }

    /** Submits one {@code IORING_OP_POLL_ADD} for {@code POLLOUT}, unless one is in flight. */
    private void waitForRoom() {
        if (writeWaiting || !canSubmit()) {
            return;
        }
        try {
            submit(REQ_SEND, NativeAbi.IORING_OP_POLL_ADD, 0, 0, 0, NativeAbi.POLLOUT, 0);
            writeWaiting = true;
        } catch (IOException e) {
            // the SQ is full: the core retries the write, and the next full socket submits it
        }
    }

    /**
     * @return the exception for a failed send; for one refused as too long ({@code EMSGSIZE}) one naming its length
     *         and the limit: for UDP the protocol's or the path's, for a Unix datagram {@code SO_SNDBUF}
     */
    private IOException failedSend(int result, int length, SocketAddress recipient) {
        if (!ERRORS.isMessageTooLong(result)) {
            return ERRORS.newIoException("sendmsg", result);
        }
        if (!unix()) {
            return ERRORS.newUdpDatagramTooLongException("sendmsg", length, recipient);
        }
        int[] sndbuf = {-1};
        Native.getsockoptInt(fd(), NativeAbi.SOL_SOCKET, SO_SNDBUF, sndbuf);
        return ERRORS.newDatagramTooLongException("sendmsg", length, sndbuf[0], null);
    }

    /** The batch form of {@link #send}: sends in order until the socket is full or one datagram fails. */
    @Override
    public int sendBatch(ByteBuffer[] srcs, SocketAddress[] targets, int count) throws IOException {
        int sent = 0;
        for (int i = 0; i < count; i++) {
            try {
                if (!send(srcs[i].duplicate(), targets[i])) {
                    break;
                }
            } catch (IOException | RuntimeException e) {
                if (sent == 0) {
                    throw e;
                }
                break; // the next call meets it as its first datagram
            }
            sent++;
        }
        return sent;
    }

    /**
     * The datagram address rule ({@link io.conduit.channel.DatagramChannel}): a connected socket sends to its peer
     * only.
     */
    private void checkTarget(SocketAddress target) {
        AddressErrors.check(target, addressKind(), true);
        SocketAddress peer = remote;
        if (connected && !target.equals(peer)) {
            throw AddressErrors.sendToOther(peer, target);
        }
    }

    /** The {@code POLLOUT} poll completed: the socket has room (or an error the next send meets). */
    private void writable(int res) {
        writeWaiting = false;
        IoEvents e = liveEvents();
        if (res == -NativeAbi.ECANCELED || e == null) {
            return;
        }
        if (wants(OP_WRITE)) {
            e.writeReady();
        }
    }

    // ------------------------------------------------------------------------------------- association

    @Override
    public void connect(SocketAddress remoteAddress) throws IOException {
        AddressErrors.check(remoteAddress, addressKind(), true);
        if (connected) {
            throw AddressErrors.alreadyConnected(remote, remoteAddress);
        }
        SocketAddress bound = localAddress();
        boundBeforeConnect = bound instanceof InetSocketAddress i && i.getPort() != 0 ? i : null;
        connect0(remoteAddress);
        connected = true;
        remote = peerAddress();
    }

    /**
     * {@code connect(2)} to {@code sink} without entering the connected mode: receives keep reporting each
     * datagram's sender (the receives in flight and the datagrams queued in the kernel stay where they are), and
     * sends keep their targets. The kernel then matches this socket only for datagrams from {@code sink}. UDP only.
     */
    @Override
    public boolean connectAway(SocketAddress sink, DatagramSink queued) throws IOException {
        if (unix()) {
            return false;
        }
        AddressErrors.check(sink, addressKind(), true);
        if (connected) {
            throw AddressErrors.alreadyConnected(remote, sink);
        }
        connect0(sink);
        return true;
    }

    private void connect0(SocketAddress address) throws IOException {
        byte[] sa = SOCKADDR.newSockaddr();
        int len = SOCKADDR.encode(address, sa, ipv6());
        int r = Native.connect(liveFd("connect"), sa, len);
        if (r < 0) {
            throw ERRORS.newConnectException("connect", r);
        }
    }

    /**
     * {@code connect(2)} to an {@code AF_UNSPEC} address dissolves the association; a UDP socket that had a port
     * before {@link #connect} is bound to it again when the kernel dropped it (as epoll's does).
     */
    @Override
    public void disconnect() throws IOException {
        byte[] unspec = SOCKADDR.newSockaddr(); // all zero: sa_family = AF_UNSPEC
        int r = Native.connect(liveFd("connect(AF_UNSPEC)"), unspec, unspec.length);
        if (r < 0 && r != -NativeAbi.EAFNOSUPPORT) {
            throw ERRORS.newIoException("connect(AF_UNSPEC)", r);
        }
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
        if (unix()) {
            throw new UnsupportedOperationException("multicast groups are for UDP channels, not Unix-domain datagram"
                    + " sockets (" + group + ")");
        }
        NativeAbi.MULTICAST.membership(liveFd(join ? "setsockopt(ADD_MEMBERSHIP)" : "setsockopt(DROP_MEMBERSHIP)"),
                ipv6(), group, nif, join);
    }

    // -------------------------------------------------------------------------------------------- options

    @Override
    public <T> boolean setOption(ChannelOption<T> option, T value) throws IOException {
        if (option == ChannelOption.IP_MULTICAST_IF) {
            if (unix()) {
                return false;
            }
            NativeAbi.MULTICAST.setInterface(liveFd("setsockopt(IP_MULTICAST_IF)"), ipv6(), (NetworkInterface) value);
            return true;
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
            return unix() ? null
                    : (T) NativeAbi.MULTICAST.getInterface(liveFd("getsockopt(IP_MULTICAST_IF)"), ipv6());
        }
        return super.getOption(option);
    }

    // ------------------------------------------------------------------------- completions, readiness

    @Override
    void onCompletion(int op, int res, int flags) {
        if (op >= REQ_RECV_SLOT && op < REQ_RECV_SLOT + RECEIVES) {
            received(op - REQ_RECV_SLOT, res);
        } else if (op == REQ_SEND) {
            writable(res);
        }
    }

    @Override
    void interestChanged(int old, int now) {
        int added = now & ~old;
        if ((added & OP_READ) != 0) {
            if (completedCount > 0) {
                handler().readyAgain(this);
            }
            submitReceives();
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
        if (wants(OP_READ) && completedCount > 0 && liveEvents() != null) {
            e.readReady();
            if (wants(OP_READ) && completedCount > 0 && liveEvents() != null) {
                handler().readyAgain(this);
            }
        }
    }

    @Override
    void cancelInFlight() {
        for (int i = 0; i < RECEIVES; i++) {
            if (receiving[i]) {
                cancel(REQ_RECV_SLOT + i);
            }
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
        completedHead = 0;
        completedCount = 0;
    }

    // ------------------------------------------------------------------------------ message headers

    /**
     * {@code count} message headers in one block of native memory, each with one {@code struct iovec}, one
     * {@code sockaddr_storage} and (for receives) one control area for {@code IP_ORIGDSTADDR}:
     * {@code [msghdr × count][iovec × count][sockaddr_storage × count][control × count]}, laid out with the
     * library's sizes and offsets ({@code struct msghdr} quoted in cmsg(3) and recvmsg(2)). A header belongs to
     * the kernel while its request is in flight.
     */
    private static final class Messages {
        private final NativeMemory memory;
        private final int iovBase;
        private final int nameBase;
        private final int controlBase;
        /** bytes of control space per message: CMSG_SPACE(sizeof(struct sockaddr_in6)), or 0 for sends */
        private final int controlSpace;

        Messages(int count, boolean control) {
            this.iovBase = align(count * NativeAbi.MSGHDR_SIZE);
            this.nameBase = align(iovBase + count * NativeAbi.IOVEC_SIZE);
            this.controlBase = align(nameBase + count * SOCKADDR.storageSize());
            this.controlSpace = control
                    ? cmsgAlign(NativeAbi.CMSG_DATA_OFFSET) + cmsgAlign(NativeAbi.SOCKADDR_IN6_SIZE) : 0;
            this.memory = NativeMemory.allocate(controlBase + count * controlSpace, Native::addressOf);
        }

        private static int align(int offset) {
            return (offset + 7) & ~7;
        }

        private static int cmsgAlign(int length) {
            int a = NativeAbi.CMSG_ALIGNMENT;
            return (length + a - 1) / a * a;
        }

        long header(int i) {
            return memory.address() + (long) i * NativeAbi.MSGHDR_SIZE;
        }

        private int nameOffset(int i) {
            return nameBase + i * SOCKADDR.storageSize();
        }

        private int controlOffset(int i) {
            return controlBase + i * controlSpace;
        }

        /** Prepares header {@code i} to send {@code length} bytes at {@code data} to {@code recipient} (null: peer). */
        void setForSend(int i, long data, int length, SocketAddress recipient, boolean ipv6Socket) {
            int nameLength = recipient == null ? 0
                    : SOCKADDR.encode(recipient, memory.buffer(), nameOffset(i), ipv6Socket);
            set(i, data, length, nameLength);
        }

        /** Prepares header {@code i} for {@code length} bytes at {@code data} with a name of {@code nameLength}. */
        void set(int i, long data, int length, int nameLength) {
            int iov = iovBase + i * NativeAbi.IOVEC_SIZE;
            memory.putWord(iov + NativeAbi.IOVEC_BASE_OFFSET, data, NativeAbi.SIZEOF_POINTER);
            memory.putWord(iov + NativeAbi.IOVEC_LEN_OFFSET, length, NativeAbi.SIZEOF_SIZE_T);
            int hdr = i * NativeAbi.MSGHDR_SIZE;
            memory.putWord(hdr + NativeAbi.MSGHDR_NAME_OFFSET, nameLength == 0 ? 0 : memory.address() + nameOffset(i),
                    NativeAbi.SIZEOF_POINTER);
            memory.buffer().putInt(hdr + NativeAbi.MSGHDR_NAMELEN_OFFSET, nameLength);
            memory.putWord(hdr + NativeAbi.MSGHDR_IOV_OFFSET, memory.address() + iov, NativeAbi.SIZEOF_POINTER);
            memory.putWord(hdr + NativeAbi.MSGHDR_IOVLEN_OFFSET, 1, NativeAbi.SIZEOF_SIZE_T);
            memory.putWord(hdr + NativeAbi.MSGHDR_CONTROL_OFFSET,
                    controlSpace == 0 ? 0 : memory.address() + controlOffset(i), NativeAbi.SIZEOF_POINTER);
            memory.putWord(hdr + NativeAbi.MSGHDR_CONTROLLEN_OFFSET, controlSpace, NativeAbi.SIZEOF_SIZE_T);
            memory.buffer().putInt(hdr + NativeAbi.MSGHDR_FLAGS_OFFSET, 0);
        }

        /** @return the sender of received header {@code i}, or {@code null} when the kernel gave none */
        SocketAddress sender(int i) {
            int nameLength = memory.buffer().getInt(i * NativeAbi.MSGHDR_SIZE + NativeAbi.MSGHDR_NAMELEN_OFFSET);
            return SOCKADDR.decode(memory.buffer(), nameOffset(i), nameLength);
        }

        /**
         * @return the original destination of received header {@code i} from its {@code IP_ORIGDSTADDR} or
         *         {@code IPV6_ORIGDSTADDR} control message, or {@code null} when there is none
         */
        SocketAddress recipient(int i) {
            int hdr = i * NativeAbi.MSGHDR_SIZE;
            long controlLength = memory.getWord(hdr + NativeAbi.MSGHDR_CONTROLLEN_OFFSET, NativeAbi.SIZEOF_SIZE_T);
            int start = controlOffset(i);
            int end = start + (int) Math.min(controlLength, controlSpace);
            int cmsg = start;
            while (cmsg + NativeAbi.CMSG_DATA_OFFSET <= end) {
                long cmsgLength = memory.getWord(cmsg + NativeAbi.CMSGHDR_LEN_OFFSET, NativeAbi.SIZEOF_SIZE_T);
                if (cmsgLength < NativeAbi.CMSG_DATA_OFFSET || cmsg + cmsgLength > end) {
                    return null; // malformed or cut (MSG_CTRUNC)
                }
                int level = memory.buffer().getInt(cmsg + NativeAbi.CMSGHDR_LEVEL_OFFSET);
                int type = memory.buffer().getInt(cmsg + NativeAbi.CMSGHDR_TYPE_OFFSET);
                if ((level == NativeAbi.IPPROTO_IP && type == NativeAbi.IP_ORIGDSTADDR)
                        || (level == NativeAbi.IPPROTO_IPV6 && type == NativeAbi.IPV6_ORIGDSTADDR)) {
                    return SOCKADDR.decode(memory.buffer(), cmsg + NativeAbi.CMSG_DATA_OFFSET,
                            (int) cmsgLength - NativeAbi.CMSG_DATA_OFFSET);
                }
                cmsg += cmsgAlign((int) cmsgLength);
            }
            return null;
        }
    }
}
