package io.conduit.epoll;

import static io.conduit.epoll.NativeAbi.SOCKADDR;

import io.conduit.transport.spi.unix.NativeMemory;

import java.net.SocketAddress;

/**
 * A batch of datagrams for {@code sendmmsg(2)} / {@code recvmmsg(2)}: {@code capacity} times
 * <pre>
 * struct mmsghdr { struct msghdr msg_hdr; unsigned int msg_len; };   // msghdr quoted on NativeAbi.MSGHDR_SIZE
 * </pre>
 * each with one {@code struct iovec}, one {@code sockaddr_storage} and one control-message area of its own, all
 * in one block of native memory laid out with the library's sizes and offsets:
 * {@code [mmsghdr × capacity][iovec × capacity][sockaddr_storage × capacity][control × capacity]}.
 *
 * <p>The control area receives the {@code IP_ORIGDSTADDR} / {@code IPV6_ORIGDSTADDR} message of a socket with
 * {@code IP_RECVORIGDSTADDR} / {@code IPV6_RECVORIGDSTADDR} on ({@link #recipient}); ancillary data is walked
 * as cmsg(3) describes:
 * <pre>
 * struct cmsghdr { size_t cmsg_len; int cmsg_level; int cmsg_type; unsigned char cmsg_data[]; };
 * CMSG_DATA(c) = (unsigned char *) c + CMSG_LEN(0);  CMSG_NXTHDR advances by CMSG_ALIGN(cmsg_len)
 * </pre>
 *
 * <p>Not thread-safe: owned by one event loop; fill entries {@code 0..n-1}, then pass {@link #address()}
 * and {@code n}.
 */
final class MmsghdrArray {
    /** number of messages */
    private final int capacity;
    private final NativeMemory memory;
    private final int iovBase;
    private final int nameBase;
    private final int controlBase;
    /** bytes of control space per message: CMSG_SPACE(sizeof(struct sockaddr_in6)) */
    private final int controlSpace;

    /** @param capacity messages, &gt; 0 */
    MmsghdrArray(int capacity) {
        if (capacity <= 0) {
            throw new IllegalArgumentException("mmsghdr capacity " + capacity + " must be > 0");
        }
        this.capacity = capacity;
        this.iovBase = align(capacity * NativeAbi.MMSGHDR_SIZE);
        this.nameBase = align(iovBase + capacity * NativeAbi.IOVEC_SIZE);
        this.controlBase = align(nameBase + capacity * NativeAbi.SOCKADDR_STORAGE_SIZE);
        this.controlSpace = cmsgAlign(NativeAbi.CMSG_DATA_OFFSET) + cmsgAlign(NativeAbi.SOCKADDR_IN6_SIZE);
        this.memory = NativeMemory.allocate(controlBase + capacity * controlSpace, Native::addressOf);
    }

    private static int align(int offset) {
        return (offset + 7) & ~7;
    }

    private static int cmsgAlign(int length) {
        int a = NativeAbi.CMSG_ALIGNMENT;
        return (length + a - 1) / a * a;
    }

    int capacity() {
        return capacity;
    }

    /** @return the address to pass to {@link Native#sendmmsg}/{@link Native#recvmmsg} */
    long address() {
        return memory.address();
    }

    /** @return the address of entry {@code index}'s {@code struct msghdr}, for {@link Native#recvmsg} */
    long messageAddress(int index) {
        return memory.address() + (long) index * NativeAbi.MMSGHDR_SIZE + NativeAbi.MMSGHDR_HDR_OFFSET;
    }

    /**
     * Prepares entry {@code index} to send {@code length} bytes at native {@code dataAddress}.
     *
     * @param recipient the destination, or {@code null} on a connected socket
     * @param ipv6Socket whether the socket is {@code AF_INET6} (IPv4 recipients are then IPv4-mapped)
     */
    void setForSend(int index, long dataAddress, int length, SocketAddress recipient, boolean ipv6Socket) {
        int nameLength = 0;
        if (recipient != null) {
            nameLength = SOCKADDR.encode(recipient, memory.buffer(), nameOffset(index), ipv6Socket);
        }
        setHeader(index, dataAddress, length, nameLength, false);
    }

    /**
     * Prepares entry {@code index} to receive up to {@code length} bytes into native {@code dataAddress}, with
     * room for the sender's address and for one control message (the original destination).
     */
    void setForReceive(int index, long dataAddress, int length) {
        setHeader(index, dataAddress, length, NativeAbi.SOCKADDR_STORAGE_SIZE, true);
    }

    private void setHeader(int index, long dataAddress, int length, int nameLength, boolean control) {
        int iov = iovBase + index * NativeAbi.IOVEC_SIZE;
        memory.putWord(iov + NativeAbi.IOVEC_BASE_OFFSET, dataAddress, NativeAbi.SIZEOF_POINTER);
        memory.putWord(iov + NativeAbi.IOVEC_LEN_OFFSET, length, NativeAbi.SIZEOF_SIZE_T);
        int hdr = index * NativeAbi.MMSGHDR_SIZE + NativeAbi.MMSGHDR_HDR_OFFSET;
        memory.putWord(hdr + NativeAbi.MSGHDR_NAME_OFFSET, nameLength == 0 ? 0 : memory.address() + nameOffset(index),
                NativeAbi.SIZEOF_POINTER);
        memory.buffer().putInt(hdr + NativeAbi.MSGHDR_NAMELEN_OFFSET, nameLength);
        memory.putWord(hdr + NativeAbi.MSGHDR_IOV_OFFSET, memory.address() + iov, NativeAbi.SIZEOF_POINTER);
        memory.putWord(hdr + NativeAbi.MSGHDR_IOVLEN_OFFSET, 1, NativeAbi.SIZEOF_SIZE_T);
        memory.putWord(hdr + NativeAbi.MSGHDR_CONTROL_OFFSET, control ? memory.address() + controlOffset(index) : 0,
                NativeAbi.SIZEOF_POINTER);
        memory.putWord(hdr + NativeAbi.MSGHDR_CONTROLLEN_OFFSET, control ? controlSpace : 0, NativeAbi.SIZEOF_SIZE_T);
        memory.buffer().putInt(hdr + NativeAbi.MSGHDR_FLAGS_OFFSET, 0);
        memory.buffer().putInt(index * NativeAbi.MMSGHDR_SIZE + NativeAbi.MMSGHDR_LEN_OFFSET, 0);
    }

    private int controlOffset(int index) {
        return controlBase + index * controlSpace;
    }

    private int nameOffset(int index) {
        return nameBase + index * NativeAbi.SOCKADDR_STORAGE_SIZE;
    }

    /** @return {@code msg_len} of entry {@code index}: bytes sent or received by the last call */
    int messageLength(int index) {
        return memory.buffer().getInt(index * NativeAbi.MMSGHDR_SIZE + NativeAbi.MMSGHDR_LEN_OFFSET);
    }

    /** @return {@code msg_flags} of entry {@code index} after receiving ({@link Native#MSG_TRUNC}, ...) */
    int flags(int index) {
        return memory.buffer().getInt(index * NativeAbi.MMSGHDR_SIZE + NativeAbi.MMSGHDR_HDR_OFFSET + NativeAbi.MSGHDR_FLAGS_OFFSET);
    }

    /** @return the sender of received entry {@code index}, or {@code null} when the kernel gave none */
    SocketAddress sender(int index) {
        int hdr = index * NativeAbi.MMSGHDR_SIZE + NativeAbi.MMSGHDR_HDR_OFFSET;
        int nameLength = memory.buffer().getInt(hdr + NativeAbi.MSGHDR_NAMELEN_OFFSET);
        return SOCKADDR.decode(memory.buffer(), nameOffset(index), nameLength);
    }

    /**
     * The address the received datagram {@code index} was sent to, from its {@code IP_ORIGDSTADDR} or
     * {@code IPV6_ORIGDSTADDR} control message.
     *
     * @return the original destination, or {@code null} when the socket does not have
     *         {@code IP_RECVORIGDSTADDR}/{@code IPV6_RECVORIGDSTADDR} on (no such control message)
     */
    SocketAddress recipient(int index) {
        int hdr = index * NativeAbi.MMSGHDR_SIZE + NativeAbi.MMSGHDR_HDR_OFFSET;
        long controlLength = memory.getWord(hdr + NativeAbi.MSGHDR_CONTROLLEN_OFFSET, NativeAbi.SIZEOF_SIZE_T);
        int start = controlOffset(index);
        int end = start + (int) Math.min(controlLength, controlSpace);
        int cmsg = start;
        while (cmsg + NativeAbi.CMSG_DATA_OFFSET <= end) {
            long cmsgLength = memory.getWord(cmsg + NativeAbi.CMSGHDR_LEN_OFFSET, NativeAbi.SIZEOF_SIZE_T);
            if (cmsgLength < NativeAbi.CMSG_DATA_OFFSET || cmsg + cmsgLength > end) {
                return null; // malformed or truncated: MSG_CTRUNC in flags(index)
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
