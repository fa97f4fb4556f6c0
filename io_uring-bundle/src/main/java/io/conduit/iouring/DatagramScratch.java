package io.conduit.iouring;

import io.conduit.transport.spi.unix.MsghdrArray;
import io.conduit.transport.spi.unix.NativeMemory;

import java.nio.ByteBuffer;

/**
 * The native memory a loop's datagram sockets share ({@link IoUringIoHandler#datagramScratch()}): the message headers
 * of {@code recvmsg(2)} and {@code sendmsg(2)}, the {@value #RECEIVE_BYTES}-byte slot a datagram is received into,
 * and the direct copy a heap datagram is sent from. Every piece is made on first use.
 *
 * <p><b>Why a loop may share them.</b> The sockets receive and send with plain system calls made on the loop thread,
 * never with a request the kernel holds on to: a piece is the kernel's only during one call, and its bytes are copied
 * out ({@link io.conduit.transport.spi.IoDatagramSocket.DatagramSink}) before the next call. So a socket, idle or
 * busy, holds none of it, and a close can never free memory the kernel still uses.
 *
 * <p>Not thread-safe: loop-confined.
 */
final class DatagramScratch {

    /** bytes of the receive slot: the largest UDP payload (65,507 IPv4 / 65,527 IPv6) fits; a longer datagram is cut */
    static final int RECEIVE_BYTES = 65_536;
    /** bytes of the first copy a heap datagram is sent from (grown for a longer one) */
    static final int BOUNCE_BYTES = 64 * 1024;
    /** the message header entries */
    static final int RECEIVE = 0;
    static final int SEND = 1;

    private MsghdrArray messages;
    private NativeMemory receiveSlot;
    private ByteBuffer bounce;
    private long bounceAddress;

    /** @return the message headers: {@link #RECEIVE} for {@code recvmsg(2)}, {@link #SEND} for {@code sendmsg(2)} */
    MsghdrArray messages() {
        if (messages == null) {
            messages = new MsghdrArray(2, NativeAbi.MSGHDR, NativeAbi.SOCKADDR);
        }
        return messages;
    }

    /** @return the {@value #RECEIVE_BYTES}-byte receive slot */
    NativeMemory receiveSlot() {
        if (receiveSlot == null) {
            receiveSlot = NativeMemory.allocate(RECEIVE_BYTES, Native::addressOf);
        }
        return receiveSlot;
    }

    /** @return a cleared direct buffer of at least {@code length} bytes to copy a heap datagram into */
    ByteBuffer bounce(int length) {
        if (bounce == null || bounce.capacity() < length) {
            bounce = ByteBuffer.allocateDirect(Math.max(BOUNCE_BYTES, length));
            bounceAddress = Native.addressOf(bounce);
        }
        return bounce.clear();
    }

    /** @return the address of {@link #bounce}'s byte 0 */
    long bounceAddress() {
        return bounceAddress;
    }
}
