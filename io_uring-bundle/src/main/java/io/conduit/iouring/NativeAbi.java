package io.conduit.iouring;

import io.conduit.transport.spi.unix.LinuxDatagrams;
import io.conduit.transport.spi.unix.LinuxMulticast;
import io.conduit.transport.spi.unix.MsghdrArray;
import io.conduit.transport.spi.unix.NativeConstants;
import io.conduit.transport.spi.unix.SockaddrCodec;
import io.conduit.transport.spi.unix.SocketCalls;
import io.conduit.transport.spi.unix.UnixErrors;
import io.conduit.transport.spi.unix.UnixSockets;

import java.lang.invoke.MethodHandles;
import java.util.Map;

/**
 * ABI facts of the loaded library, read once from {@link Native#constantNames()} / {@link Native#constantValues()}:
 * the layouts of {@code struct io_uring_sqe} and {@code struct io_uring_cqe}, the ring offsets, opcodes, flags,
 * errno values and socket constants. Nothing is hard-coded in Java.
 *
 * <p>A separate class from {@link Native}, which must have no static initialiser; initialise this one only after
 * the library is loaded.
 *
 * <p>Immutable after initialisation; thread-safe.
 */
final class NativeAbi {

    private NativeAbi() {
    }

    private static final NativeConstants CONSTANTS = NativeConstants.of(Native.constantNames(),
            Native.constantValues(), "io.conduit.iouring");

    /**
     * The socket logic shared with the other Unix transports (bind, listen, shutdown, addresses, the options of
     * {@link IoUringSocket#optionTable}), over this library's natives.
     */
    static final UnixSockets SOCKETS = new UnixSockets(CONSTANTS, Native::strerror, true,
            SocketCalls.of(MethodHandles.lookup(), Native.class), IoUringSocket.optionTable(CONSTANTS));

    /** The {@code -errno} convention: values and typed exceptions, with the library's {@code strerror(3)}. */
    static final UnixErrors ERRORS = SOCKETS.errors();

    /** Multicast membership and {@code IP_MULTICAST_IF} of UDP sockets, over this library's natives. */
    static final LinuxMulticast MULTICAST = new LinuxMulticast(CONSTANTS, ERRORS,
            SocketCalls.of(MethodHandles.lookup(), Native.class), Native::setsockoptBytes);

    /** Raw socket addresses with the library's layouts. */
    static final SockaddrCodec SOCKADDR = SOCKETS.sockaddr();

    /** The datagram-socket logic shared with epoll (address rules, connect, failed sends, multicast). */
    static final LinuxDatagrams DATAGRAMS = new LinuxDatagrams(CONSTANTS, SOCKETS,
            SocketCalls.of(MethodHandles.lookup(), Native.class), MULTICAST, Native::connect);

    /** The {@code struct msghdr} layout of {@code recvmsg(2)}/{@code sendmsg(2)}, from the library. */
    static final MsghdrArray.Layout MSGHDR = MsghdrArray.Layout.msghdr(CONSTANTS, Native::addressOf);

    /** The {@code struct iovec} layout of {@code writev(2)}, from the library. */
    static final io.conduit.transport.spi.unix.IovArray.Layout IOVEC =
            io.conduit.transport.spi.unix.IovArray.Layout.of(CONSTANTS, Native::addressOf);

    /** @return the value of the named native constant */
    static int constant(String name) {
        return CONSTANTS.get(name);
    }

    /** @return a copy of every constant the library publishes, for diagnostics */
    static Map<String, Integer> constants() {
        return CONSTANTS.asMap();
    }

    /**
     * <pre>
     * struct io_uring_sqe {
     *     __u8 opcode; __u8 flags; __u16 ioprio; __s32 fd;
     *     union { __u64 off; __u64 addr2; ... };
     *     union { __u64 addr; __u64 splice_off_in; ... };
     *     __u32 len;
     *     union { __kernel_rwf_t rw_flags; __u32 msg_flags; __u32 accept_flags; __u32 cancel_flags; ... };
     *     __u64 user_data;
     *     union { __u16 buf_index; __u16 buf_group; } __attribute__((packed));
     *     __u16 personality;
     *     union { __s32 splice_fd_in; __u32 file_index; ... };
     *     __u64 addr3; __u64 __pad2[1];
     * };
     * </pre>
     */
    static final int SQE_SIZE = constant("SQE_SIZE");
    static final int SQE_OPCODE = constant("SQE_opcode_OFFSET");
    static final int SQE_FLAGS = constant("SQE_flags_OFFSET");
    static final int SQE_IOPRIO = constant("SQE_ioprio_OFFSET");
    static final int SQE_FD = constant("SQE_fd_OFFSET");
    static final int SQE_OFF = constant("SQE_off_OFFSET");
    static final int SQE_ADDR = constant("SQE_addr_OFFSET");
    static final int SQE_LEN = constant("SQE_len_OFFSET");
    static final int SQE_MSG_FLAGS = constant("SQE_msg_flags_OFFSET");
    static final int SQE_ACCEPT_FLAGS = constant("SQE_accept_flags_OFFSET");
    static final int SQE_CANCEL_FLAGS = constant("SQE_cancel_flags_OFFSET");
    static final int SQE_USER_DATA = constant("SQE_user_data_OFFSET");

    /** {@code struct io_uring_cqe { __u64 user_data; __s32 res; __u32 flags; };} */
    static final int CQE_SIZE = constant("CQE_SIZE");
    static final int CQE_USER_DATA = constant("CQE_USER_DATA_OFFSET");
    static final int CQE_RES = constant("CQE_RES_OFFSET");
    static final int CQE_FLAGS = constant("CQE_FLAGS_OFFSET");

    /** mmap(2) offsets of the submission ring, the completion ring and the submission entries */
    static final int IORING_OFF_SQ_RING = constant("IORING_OFF_SQ_RING");
    static final int IORING_OFF_CQ_RING = constant("IORING_OFF_CQ_RING");
    static final int IORING_OFF_SQES = constant("IORING_OFF_SQES");

    // io_uring_setup(2)
    static final int IORING_SETUP_CQSIZE = constant("IORING_SETUP_CQSIZE");
    static final int IORING_SETUP_SUBMIT_ALL = constant("IORING_SETUP_SUBMIT_ALL");
    static final int IORING_SETUP_SINGLE_ISSUER = constant("IORING_SETUP_SINGLE_ISSUER");
    static final int IORING_SETUP_COOP_TASKRUN = constant("IORING_SETUP_COOP_TASKRUN");
    static final int IORING_SETUP_TASKRUN_FLAG = constant("IORING_SETUP_TASKRUN_FLAG");
    static final int IORING_SETUP_DEFER_TASKRUN = constant("IORING_SETUP_DEFER_TASKRUN");
    static final int IORING_FEAT_SINGLE_MMAP = constant("IORING_FEAT_SINGLE_MMAP");
    static final int IORING_FEAT_NODROP = constant("IORING_FEAT_NODROP");
    static final int IORING_FEAT_EXT_ARG = constant("IORING_FEAT_EXT_ARG");

    /** indices into the {@code int[]} {@link Native#ioUringSetup} fills */
    static final int PARAMS_LENGTH = constant("PARAMS_LENGTH");
    static final int PARAMS_SQ_ENTRIES = constant("PARAMS_SQ_ENTRIES");
    static final int PARAMS_CQ_ENTRIES = constant("PARAMS_CQ_ENTRIES");
    static final int PARAMS_FEATURES = constant("PARAMS_FEATURES");
    static final int PARAMS_SQ_HEAD = constant("PARAMS_SQ_HEAD");
    static final int PARAMS_SQ_TAIL = constant("PARAMS_SQ_TAIL");
    static final int PARAMS_SQ_RING_MASK = constant("PARAMS_SQ_RING_MASK");
    static final int PARAMS_SQ_FLAGS = constant("PARAMS_SQ_FLAGS");
    static final int PARAMS_SQ_ARRAY = constant("PARAMS_SQ_ARRAY");
    static final int PARAMS_CQ_HEAD = constant("PARAMS_CQ_HEAD");
    static final int PARAMS_CQ_TAIL = constant("PARAMS_CQ_TAIL");
    static final int PARAMS_CQ_RING_MASK = constant("PARAMS_CQ_RING_MASK");
    static final int PARAMS_CQES = constant("PARAMS_CQES");

    // io_uring_enter(2), io_uring_register(2), ring flags
    static final int IORING_ENTER_GETEVENTS = constant("IORING_ENTER_GETEVENTS");
    /** the ring is named by its index among the thread's registered rings, not its descriptor (5.18) */
    static final int IORING_ENTER_REGISTERED_RING = constant("IORING_ENTER_REGISTERED_RING");
    static final int IORING_SQ_CQ_OVERFLOW = constant("IORING_SQ_CQ_OVERFLOW");
    static final int IORING_SQ_TASKRUN = constant("IORING_SQ_TASKRUN");

    // opcodes
    static final int IORING_OP_NOP = constant("IORING_OP_NOP");
    static final int IORING_OP_READ = constant("IORING_OP_READ");
    static final int IORING_OP_SEND = constant("IORING_OP_SEND");
    static final int IORING_OP_RECV = constant("IORING_OP_RECV");
    static final int IORING_OP_ACCEPT = constant("IORING_OP_ACCEPT");
    static final int IORING_OP_CONNECT = constant("IORING_OP_CONNECT");
    static final int IORING_OP_ASYNC_CANCEL = constant("IORING_OP_ASYNC_CANCEL");
    /** a send the kernel reads in place; a second completion ({@link #IORING_CQE_F_NOTIF}) gives the buffer back (6.0) */
    static final int IORING_OP_SEND_ZC = constant("IORING_OP_SEND_ZC");

    // SQE and CQE flags
    static final int IOSQE_BUFFER_SELECT = constant("IOSQE_BUFFER_SELECT");
    static final int IORING_ACCEPT_MULTISHOT = constant("IORING_ACCEPT_MULTISHOT");
    /** {@code sqe.ioprio} of a receive: it stays armed and completes once per buffer (Linux 6.0) */
    static final int IORING_RECV_MULTISHOT = constant("IORING_RECV_MULTISHOT");
    static final int IORING_CQE_F_MORE = constant("IORING_CQE_F_MORE");
    static final int IORING_CQE_F_BUFFER = constant("IORING_CQE_F_BUFFER");
    static final int IORING_CQE_BUFFER_SHIFT = constant("IORING_CQE_BUFFER_SHIFT");
    /** the completion of a zero-copy send that says the kernel no longer reads its buffer */
    static final int IORING_CQE_F_NOTIF = constant("IORING_CQE_F_NOTIF");
    /** {@code sqe.ioprio} of a zero-copy send: its notification says whether the kernel copied after all (6.2) */
    static final int IORING_SEND_ZC_REPORT_USAGE = constant("IORING_SEND_ZC_REPORT_USAGE");
    /** set in the notification's {@code res} when the kernel copied the bytes (e.g. over loopback) */
    static final int IORING_NOTIF_USAGE_ZC_COPIED = constant("IORING_NOTIF_USAGE_ZC_COPIED");

    /**
     * Provided buffer rings (Linux 5.19):
     * <pre>
     * struct io_uring_buf { __u64 addr; __u32 len; __u16 bid; __u16 resv; };
     * struct io_uring_buf_ring { union { struct { __u64 resv1; __u32 resv2; __u16 resv3; __u16 tail; };
     *                                    struct io_uring_buf bufs[]; }; };
     * </pre>
     * The tail overlays the first entry's {@code resv}.
     */
    static final int BUF_SIZE = constant("BUF_SIZE");
    static final int BUF_ADDR_OFFSET = constant("BUF_ADDR_OFFSET");
    static final int BUF_LEN_OFFSET = constant("BUF_LEN_OFFSET");
    static final int BUF_BID_OFFSET = constant("BUF_BID_OFFSET");
    static final int BUF_RING_TAIL_OFFSET = constant("BUF_RING_TAIL_OFFSET");
    static final int SQE_BUF_GROUP = constant("SQE_buf_group_OFFSET");
    static final int ENOBUFS = constant("ENOBUFS");
    static final int ENOMEM = constant("ENOMEM");

    // errno(3)
    static final int EAGAIN = constant("EAGAIN");
    static final int EINTR = constant("EINTR");
    static final int EINVAL = constant("EINVAL");
    static final int EOPNOTSUPP = constant("EOPNOTSUPP");
    static final int EPERM = constant("EPERM");
    static final int ENOSYS = constant("ENOSYS");
    static final int ENOENT = constant("ENOENT");
    static final int EALREADY = constant("EALREADY");
    static final int ECANCELED = constant("ECANCELED");
    static final int ETIME = constant("ETIME");
    static final int EBUSY = constant("EBUSY");
    static final int ENOTCONN = constant("ENOTCONN");
    static final int ECONNABORTED = constant("ECONNABORTED");
    static final int EAFNOSUPPORT = constant("EAFNOSUPPORT");

    // socket(2), shutdown(2), send(2), eventfd(2)
    static final int AF_INET = constant("AF_INET");
    static final int AF_INET6 = constant("AF_INET6");
    static final int AF_UNIX = constant("AF_UNIX");
    static final int SOCK_STREAM = constant("SOCK_STREAM");
    static final int SOCK_NONBLOCK = constant("SOCK_NONBLOCK");
    static final int SOCK_CLOEXEC = constant("SOCK_CLOEXEC");
    static final int IPPROTO_IPV6 = constant("IPPROTO_IPV6");
    static final int IPV6_V6ONLY = constant("IPV6_V6ONLY");
    static final int IPV6_TCLASS = constant("IPV6_TCLASS");
    static final int SHUT_RD = constant("SHUT_RD");
    static final int SHUT_WR = constant("SHUT_WR");
    static final int MSG_NOSIGNAL = constant("MSG_NOSIGNAL");
    static final int EFD_CLOEXEC = constant("EFD_CLOEXEC");
    static final int EFD_NONBLOCK = constant("EFD_NONBLOCK");
    static final int SOL_SOCKET = constant("SOL_SOCKET");
    static final int SO_REUSEADDR = constant("SO_REUSEADDR");

    // datagrams (IoUringDatagramSocket): recvmsg(2)/sendmsg(2) (MsghdrArray), POLLIN and POLLOUT polls
    static final int MSG_TRUNC = constant("MSG_TRUNC");
    static final int MSG_DONTWAIT = constant("MSG_DONTWAIT");
    static final int POLLIN = constant("POLLIN");
    static final int POLLOUT = constant("POLLOUT");
    static final int IORING_OP_POLL_ADD = constant("IORING_OP_POLL_ADD");

    // file regions and zero-copy forwarding: sendfile(2), splice(2), pipe2(2)
    static final int SPLICE_F_MOVE = constant("SPLICE_F_MOVE");
    static final int SPLICE_F_NONBLOCK = constant("SPLICE_F_NONBLOCK");
    static final int O_NONBLOCK = constant("O_NONBLOCK");
    static final int O_CLOEXEC = constant("O_CLOEXEC");
    static final int EBADF = constant("EBADF");
}
