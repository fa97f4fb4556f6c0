package io.conduit.epoll;

import io.conduit.transport.spi.IoEventLoop;
import io.conduit.transport.spi.unix.IovArray;
import io.conduit.transport.spi.unix.MsghdrArray;
import io.conduit.transport.spi.unix.NativeMemory;

import java.nio.ByteBuffer;

/**
 * Native scratch memory shared by every socket of one event loop: the iovec array of gathering writes, the
 * {@code mmsghdr} array and receive slots of datagram batches, and a direct bounce buffer for heap buffers.
 * Each piece is allocated on first use only, so a loop that never sends a datagram never pays for the batch
 * memory. Kept as an attachment of the loop thread ({@link IoEventLoop#threadAttachment}) (no {@code ThreadLocal}: nothing pins this bundle's
 * class loader after the loop ends); a loop whose thread is not a loop thread keeps it on its
 * {@link EpollIoHandler}.
 *
 * <p>Not thread-safe: loop-confined. A piece is used by one system call at a time and released before any
 * pipeline code runs (the datagram batch is copied out before packets are fired).
 */
final class LoopResources {

    private static final Object KEY = new Object();

    /** datagrams per {@code recvmmsg}/{@code sendmmsg} call */
    static final int DATAGRAM_BATCH = 32;
    /** receive slot per datagram: the largest UDP payload (65,507 IPv4 / 65,527 IPv6) fits */
    static final int DATAGRAM_SLOT_BYTES = 65_536;
    /** bounce buffer for heap {@link ByteBuffer}s */
    static final int BOUNCE_BYTES = 64 * 1024;

    private IovArray iov;
    private MsghdrArray mmsg;
    private NativeMemory receiveSlots;
    private ByteBuffer bounce;
    private long bounceAddress;

    /** @return the calling loop's resources; {@code fallbackOwner}'s when the thread is not a loop thread */
    static LoopResources current(EpollIoHandler fallbackOwner) {
        LoopResources r = IoEventLoop.threadAttachment(KEY, LoopResources::new);
        return r != null ? r : fallbackOwner.fallbackResources();
    }

    /** @return the iovec array, {@link NativeAbi#IOV_MAX} entries, cleared */
    IovArray iov() {
        if (iov == null) {
            iov = new IovArray(NativeAbi.IOV_MAX, NativeAbi.IOVEC);
        }
        iov.clear();
        return iov;
    }

    /** @return the {@value #DATAGRAM_BATCH}-entry mmsghdr array */
    MsghdrArray mmsg() {
        if (mmsg == null) {
            mmsg = NativeAbi.mmsghdrArray(DATAGRAM_BATCH);
        }
        return mmsg;
    }

    /** @return {@value #DATAGRAM_BATCH} receive slots of {@value #DATAGRAM_SLOT_BYTES} bytes, one block */
    NativeMemory receiveSlots() {
        if (receiveSlots == null) {
            receiveSlots = NativeMemory.allocate(DATAGRAM_BATCH * DATAGRAM_SLOT_BYTES, Native::addressOf);
        }
        return receiveSlots;
    }

    /** @return a cleared direct buffer of {@value #BOUNCE_BYTES} bytes for heap-buffer I/O */
    ByteBuffer bounce() {
        if (bounce == null) {
            bounce = ByteBuffer.allocateDirect(BOUNCE_BYTES);
            bounceAddress = Native.addressOf(bounce);
        }
        bounce.clear();
        return bounce;
    }

    /** @return the address of {@link #bounce()}'s byte 0 */
    long bounceAddress() {
        return bounceAddress;
    }
}
