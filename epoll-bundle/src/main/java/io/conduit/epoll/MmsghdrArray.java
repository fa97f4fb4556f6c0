package io.conduit.epoll;

import java.net.SocketAddress;

/**
 * A batch of datagrams for {@code sendmmsg(2)} / {@code recvmmsg(2)}: {@code capacity} times
 * <pre>
 * struct mmsghdr { struct msghdr msg_hdr; unsigned int msg_len; };   // msghdr quoted on NativeAbi.MSGHDR_SIZE
 * </pre>
 * each with one {@code struct iovec} and one {@code sockaddr_storage} of its own, all in one block of native
 * memory laid out with the library's sizes and offsets:
 * {@code [mmsghdr × capacity][iovec × capacity][sockaddr_storage × capacity]}.
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

    /** @param capacity messages, &gt; 0 */
    MmsghdrArray(int capacity) {
        if (capacity <= 0) {
            throw new IllegalArgumentException("mmsghdr capacity " + capacity + " must be > 0");
        }
        this.capacity = capacity;
        this.iovBase = align(capacity * NativeAbi.MMSGHDR_SIZE);
        this.nameBase = align(iovBase + capacity * NativeAbi.IOVEC_SIZE);
        this.memory = NativeMemory.allocate(nameBase + capacity * NativeAbi.SOCKADDR_STORAGE_SIZE);
    }

    private static int align(int offset) {
        return (offset + 7) & ~7;
    }

    int capacity() {
        return capacity;
    }

    /** @return the address to pass to {@link Native#sendmmsg}/{@link Native#recvmmsg} */
    long address() {
        return memory.address();
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
            nameLength = Sockaddr.encode(recipient, memory.buffer(), nameOffset(index), ipv6Socket);
        }
        setHeader(index, dataAddress, length, nameLength);
    }

    /** Prepares entry {@code index} to receive up to {@code length} bytes into native {@code dataAddress}. */
    void setForReceive(int index, long dataAddress, int length) {
        setHeader(index, dataAddress, length, NativeAbi.SOCKADDR_STORAGE_SIZE);
    }

    private void setHeader(int index, long dataAddress, int length, int nameLength) {
        int iov = iovBase + index * NativeAbi.IOVEC_SIZE;
        memory.putWord(iov + NativeAbi.IOVEC_BASE_OFFSET, dataAddress, NativeAbi.SIZEOF_POINTER);
        memory.putWord(iov + NativeAbi.IOVEC_LEN_OFFSET, length, NativeAbi.SIZEOF_SIZE_T);
        int hdr = index * NativeAbi.MMSGHDR_SIZE + NativeAbi.MMSGHDR_HDR_OFFSET;
        memory.putWord(hdr + NativeAbi.MSGHDR_NAME_OFFSET, nameLength == 0 ? 0 : memory.address() + nameOffset(index),
                NativeAbi.SIZEOF_POINTER);
        memory.buffer().putInt(hdr + NativeAbi.MSGHDR_NAMELEN_OFFSET, nameLength);
        memory.putWord(hdr + NativeAbi.MSGHDR_IOV_OFFSET, memory.address() + iov, NativeAbi.SIZEOF_POINTER);
        memory.putWord(hdr + NativeAbi.MSGHDR_IOVLEN_OFFSET, 1, NativeAbi.SIZEOF_SIZE_T);
        memory.putWord(hdr + NativeAbi.MSGHDR_CONTROL_OFFSET, 0, NativeAbi.SIZEOF_POINTER);
        memory.putWord(hdr + NativeAbi.MSGHDR_CONTROLLEN_OFFSET, 0, NativeAbi.SIZEOF_SIZE_T);
        memory.buffer().putInt(hdr + NativeAbi.MSGHDR_FLAGS_OFFSET, 0);
        memory.buffer().putInt(index * NativeAbi.MMSGHDR_SIZE + NativeAbi.MMSGHDR_LEN_OFFSET, 0);
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
        return Sockaddr.decode(memory.buffer(), nameOffset(index), nameLength);
    }
}
