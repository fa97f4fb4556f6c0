package io.conduit.transport.spi.unix;

import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.function.ToLongFunction;

/**
 * SPI for transport implementers: an array of message headers for {@code recvmsg(2)}/{@code sendmsg(2)} (one
 * {@code struct msghdr} per entry) or {@code recvmmsg(2)}/{@code sendmmsg(2)} (one {@code struct mmsghdr} per entry),
 * each with one {@code struct iovec}, one {@code sockaddr_storage} and one control-message area of its own, all in one
 * block of native memory laid out with the library's sizes and offsets:
 * {@code [header × capacity][iovec × capacity][sockaddr_storage × capacity][control × capacity]}.
 * <pre>
 * struct msghdr  { void *msg_name; socklen_t msg_namelen; struct iovec *msg_iov; size_t msg_iovlen;
 *                  void *msg_control; size_t msg_controllen; int msg_flags; };      // recvmsg(2)
 * struct mmsghdr { struct msghdr msg_hdr; unsigned int msg_len; };                   // recvmmsg(2)
 * </pre>
 *
 * <p>The control area receives the {@code IP_ORIGDSTADDR} / {@code IPV6_ORIGDSTADDR} message of a socket with
 * {@code IP_RECVORIGDSTADDR} / {@code IPV6_RECVORIGDSTADDR} on ({@link #recipient}, {@code ip(7)}, {@code ipv6(7)});
 * ancillary data is walked as cmsg(3) describes:
 * <pre>
 * struct cmsghdr { size_t cmsg_len; int cmsg_level; int cmsg_type; unsigned char cmsg_data[]; };
 * CMSG_DATA(c) = (unsigned char *) c + CMSG_LEN(0);  CMSG_NXTHDR advances by CMSG_ALIGN(cmsg_len)
 * </pre>
 *
 * <p><b>Ownership.</b> An entry handed to the kernel (a batch call, or a request of a completion-based transport)
 * is the kernel's until the call returns or the request completes; the owner keeps this array reachable until then
 * ({@link NativeMemory}).
 *
 * <p>Not thread-safe: owned by one event loop; fill entries {@code 0..n-1}, then pass {@link #address()} and
 * {@code n} (or {@link #messageAddress(int)} for one message).
 *
 * @since 0.7.0
 */
public final class MsghdrArray {

    /**
     * The platform's message-header structs, as the transport's native library reports them: {@code struct msghdr},
     * {@code struct mmsghdr} (when the array is made for {@code recvmmsg(2)}), {@code struct iovec},
     * {@code struct cmsghdr} and the {@code IP_ORIGDSTADDR} names. Immutable; thread-safe.
     */
    public static final class Layout {
        /** bytes of one entry: {@code sizeof(struct mmsghdr)} or {@code sizeof(struct msghdr)} */
        private final int entrySize;
        /** offset of the {@code struct msghdr} in an entry: {@code offsetof(struct mmsghdr, msg_hdr)} or 0 */
        private final int headerOffset;
        /** offset of {@code msg_len} in an entry, or -1 for plain {@code struct msghdr} entries */
        private final int lengthOffset;
        private final int nameOffset;
        private final int nameLengthOffset;
        private final int iovOffset;
        private final int iovLengthOffset;
        private final int controlOffset;
        private final int controlLengthOffset;
        private final int flagsOffset;
        private final int iovecSize;
        private final int iovecBaseOffset;
        private final int iovecLengthOffset;
        private final int pointerSize;
        private final int sizeTSize;
        private final int cmsgLengthOffset;
        private final int cmsgLevelOffset;
        private final int cmsgTypeOffset;
        /** {@code CMSG_LEN(0)} */
        private final int cmsgDataOffset;
        /** {@code CMSG_ALIGN(1)} */
        private final int cmsgAlignment;
        /** bytes of control space per entry: {@code CMSG_SPACE(sizeof(struct sockaddr_in6))} */
        private final int controlSpace;
        private final int storageSize;
        private final int ipprotoIp;
        private final int ipprotoIpv6;
        private final int ipOrigDstAddr;
        private final int ipv6OrigDstAddr;
        private final ToLongFunction<ByteBuffer> addressOf;

        private Layout(NativeConstants c, ToLongFunction<ByteBuffer> addressOf, boolean mmsghdr) {
            this.addressOf = Objects.requireNonNull(addressOf, "addressOf");
            entrySize = mmsghdr ? c.get("MMSGHDR_SIZE") : c.get("MSGHDR_SIZE");
            headerOffset = mmsghdr ? c.get("MMSGHDR_HDR_OFFSET") : 0;
            lengthOffset = mmsghdr ? c.get("MMSGHDR_LEN_OFFSET") : -1;
            nameOffset = c.get("MSGHDR_NAME_OFFSET");
            nameLengthOffset = c.get("MSGHDR_NAMELEN_OFFSET");
            iovOffset = c.get("MSGHDR_IOV_OFFSET");
            iovLengthOffset = c.get("MSGHDR_IOVLEN_OFFSET");
            controlOffset = c.get("MSGHDR_CONTROL_OFFSET");
            controlLengthOffset = c.get("MSGHDR_CONTROLLEN_OFFSET");
            flagsOffset = c.get("MSGHDR_FLAGS_OFFSET");
            iovecSize = c.get("IOVEC_SIZE");
            iovecBaseOffset = c.get("IOVEC_BASE_OFFSET");
            iovecLengthOffset = c.get("IOVEC_LEN_OFFSET");
            pointerSize = c.get("SIZEOF_POINTER");
            sizeTSize = c.get("SIZEOF_SIZE_T");
            cmsgLengthOffset = c.get("CMSGHDR_LEN_OFFSET");
            cmsgLevelOffset = c.get("CMSGHDR_LEVEL_OFFSET");
            cmsgTypeOffset = c.get("CMSGHDR_TYPE_OFFSET");
            cmsgDataOffset = c.get("CMSG_DATA_OFFSET");
            cmsgAlignment = c.get("CMSG_ALIGNMENT");
            storageSize = c.get("SOCKADDR_STORAGE_SIZE");
            controlSpace = cmsgAlign(cmsgDataOffset) + cmsgAlign(c.get("SOCKADDR_IN6_SIZE"));
            ipprotoIp = c.get("IPPROTO_IP");
            ipprotoIpv6 = c.get("IPPROTO_IPV6");
            ipOrigDstAddr = c.get("IP_ORIGDSTADDR");
            ipv6OrigDstAddr = c.get("IPV6_ORIGDSTADDR");
        }

        /**
         * Entries of {@code struct msghdr}, for {@code recvmsg(2)}/{@code sendmsg(2)} and {@code IORING_OP_RECVMSG}.
         *
         * @param constants the library's constants ({@code MSGHDR_*}, {@code IOVEC_*}, {@code CMSGHDR_*},
         *                  {@code CMSG_*}, {@code SIZEOF_*}, {@code SOCKADDR_STORAGE_SIZE}, {@code SOCKADDR_IN6_SIZE},
         *                  {@code IPPROTO_IP}, {@code IPPROTO_IPV6}, {@code IP_ORIGDSTADDR}, {@code IPV6_ORIGDSTADDR})
         * @param addressOf the native address of a direct buffer's byte 0, from the same library
         * @return the layout
         * @throws IllegalStateException when a constant is missing
         */
        public static Layout msghdr(NativeConstants constants, ToLongFunction<ByteBuffer> addressOf) {
            return new Layout(constants, addressOf, false);
        }

        /**
         * Entries of {@code struct mmsghdr}, for {@code recvmmsg(2)}/{@code sendmmsg(2)}: as {@link #msghdr}, and
         * {@code MMSGHDR_SIZE}, {@code MMSGHDR_HDR_OFFSET}, {@code MMSGHDR_LEN_OFFSET}.
         *
         * @return the layout
         * @throws IllegalStateException when a constant is missing
         */
        public static Layout mmsghdr(NativeConstants constants, ToLongFunction<ByteBuffer> addressOf) {
            return new Layout(constants, addressOf, true);
        }

        private int cmsgAlign(int length) {
            return (length + cmsgAlignment - 1) / cmsgAlignment * cmsgAlignment;
        }
    }

    private final Layout layout;
    private final SockaddrCodec sockaddr;
    /** number of messages */
    private final int capacity;
    private final NativeMemory memory;
    private final int iovBase;
    private final int nameBase;
    private final int controlBase;

    /**
     * @param capacity messages, &gt; 0
     * @param layout   the platform's structs
     * @param sockaddr the library's socket address layouts (senders and recipients)
     * @throws IllegalArgumentException when {@code capacity <= 0}
     */
    public MsghdrArray(int capacity, Layout layout, SockaddrCodec sockaddr) {
        if (capacity <= 0) {
            throw new IllegalArgumentException("message header capacity " + capacity + " must be > 0");
        }
        this.layout = Objects.requireNonNull(layout, "layout");
        this.sockaddr = Objects.requireNonNull(sockaddr, "sockaddr");
        this.capacity = capacity;
        this.iovBase = align(capacity * layout.entrySize);
        this.nameBase = align(iovBase + capacity * layout.iovecSize);
        this.controlBase = align(nameBase + capacity * layout.storageSize);
        this.memory = NativeMemory.allocate(controlBase + capacity * layout.controlSpace, layout.addressOf);
    }

    private static int align(int offset) {
        return (offset + 7) & ~7;
    }

    /** @return the number of messages */
    public int capacity() {
        return capacity;
    }

    /** @return the address of entry 0, to pass with a count to {@code sendmmsg(2)}/{@code recvmmsg(2)} */
    public long address() {
        return memory.address();
    }

    /** @return the address of entry {@code index}'s {@code struct msghdr}, for {@code recvmsg(2)}/{@code sendmsg(2)} */
    public long messageAddress(int index) {
        return memory.address() + header(index);
    }

    /** @return the bytes of native memory this array holds */
    public int sizeBytes() {
        return memory.size();
    }

    private int header(int index) {
        return index * layout.entrySize + layout.headerOffset;
    }

    private int nameOffset(int index) {
        return nameBase + index * layout.storageSize;
    }

    private int controlOffset(int index) {
        return controlBase + index * layout.controlSpace;
    }

    /**
     * Prepares entry {@code index} to send {@code length} bytes at native {@code dataAddress}, without control data.
     *
     * @param recipient  the destination, or {@code null} on a connected socket
     * @param ipv6Socket whether the socket is {@code AF_INET6} (IPv4 recipients are then IPv4-mapped)
     * @throws java.nio.channels.UnsupportedAddressTypeException as {@link SockaddrCodec#encode} says
     */
    public void setForSend(int index, long dataAddress, int length, SocketAddress recipient, boolean ipv6Socket) {
        int nameLength = 0;
        if (recipient != null) {
            nameLength = sockaddr.encode(recipient, memory.buffer(), nameOffset(index), ipv6Socket);
        }
        setHeader(index, dataAddress, length, nameLength, false);
    }

    /**
     * Prepares entry {@code index} to receive up to {@code length} bytes into native {@code dataAddress}, with room
     * for the sender's address and for one control message (the original destination).
     */
    public void setForReceive(int index, long dataAddress, int length) {
        setHeader(index, dataAddress, length, layout.storageSize, true);
    }

    private void setHeader(int index, long dataAddress, int length, int nameLength, boolean control) {
        Layout l = layout;
        ByteBuffer b = memory.buffer();
        int iov = iovBase + index * l.iovecSize;
        memory.putWord(iov + l.iovecBaseOffset, dataAddress, l.pointerSize);
        memory.putWord(iov + l.iovecLengthOffset, length, l.sizeTSize);
        int hdr = header(index);
        memory.putWord(hdr + l.nameOffset, nameLength == 0 ? 0 : memory.address() + nameOffset(index), l.pointerSize);
        b.putInt(hdr + l.nameLengthOffset, nameLength);
        memory.putWord(hdr + l.iovOffset, memory.address() + iov, l.pointerSize);
        memory.putWord(hdr + l.iovLengthOffset, 1, l.sizeTSize);
        memory.putWord(hdr + l.controlOffset, control ? memory.address() + controlOffset(index) : 0, l.pointerSize);
        memory.putWord(hdr + l.controlLengthOffset, control ? l.controlSpace : 0, l.sizeTSize);
        b.putInt(hdr + l.flagsOffset, 0);
        if (l.lengthOffset >= 0) {
            b.putInt(index * l.entrySize + l.lengthOffset, 0);
        }
    }

    /**
     * @return {@code msg_len} of entry {@code index}: bytes sent or received by the last {@code sendmmsg(2)} or
     *         {@code recvmmsg(2)}
     * @throws IllegalStateException when the array holds plain {@code struct msghdr} entries (the call's result is
     *         the length then)
     */
    public int messageLength(int index) {
        if (layout.lengthOffset < 0) {
            throw new IllegalStateException("struct msghdr entries have no msg_len: the call returns the length");
        }
        return memory.buffer().getInt(index * layout.entrySize + layout.lengthOffset);
    }

    /** @return {@code msg_flags} of entry {@code index} after receiving ({@code MSG_TRUNC}, {@code MSG_CTRUNC}, ...) */
    public int flags(int index) {
        return memory.buffer().getInt(header(index) + layout.flagsOffset);
    }

    /** @return the sender of received entry {@code index}, or {@code null} when the kernel gave none */
    public SocketAddress sender(int index) {
        int nameLength = memory.buffer().getInt(header(index) + layout.nameLengthOffset);
        return sockaddr.decode(memory.buffer(), nameOffset(index), nameLength);
    }

    /**
     * The address the received datagram {@code index} was sent to, from its {@code IP_ORIGDSTADDR} or
     * {@code IPV6_ORIGDSTADDR} control message.
     *
     * @return the original destination, or {@code null} when there is no such control message (the socket does not
     *         have {@code IP_RECVORIGDSTADDR} on) or it is malformed or cut ({@code MSG_CTRUNC})
     */
    public SocketAddress recipient(int index) {
        Layout l = layout;
        ByteBuffer b = memory.buffer();
        long controlLength = memory.getWord(header(index) + l.controlLengthOffset, l.sizeTSize);
        int start = controlOffset(index);
        int end = start + (int) Math.min(controlLength, l.controlSpace);
        int cmsg = start;
        while (cmsg + l.cmsgDataOffset <= end) {
            long cmsgLength = memory.getWord(cmsg + l.cmsgLengthOffset, l.sizeTSize);
            if (cmsgLength < l.cmsgDataOffset || cmsg + cmsgLength > end) {
                return null; // malformed or cut: MSG_CTRUNC in flags(index)
            }
            int level = b.getInt(cmsg + l.cmsgLevelOffset);
            int type = b.getInt(cmsg + l.cmsgTypeOffset);
            if ((level == l.ipprotoIp && type == l.ipOrigDstAddr)
                    || (level == l.ipprotoIpv6 && type == l.ipv6OrigDstAddr)) {
                return sockaddr.decode(b, cmsg + l.cmsgDataOffset, (int) cmsgLength - l.cmsgDataOffset);
            }
            cmsg += l.cmsgAlign((int) cmsgLength);
        }
        return null;
    }
}
