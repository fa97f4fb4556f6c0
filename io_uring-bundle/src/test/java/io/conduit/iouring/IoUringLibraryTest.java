package io.conduit.iouring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.transport.spi.NativeLibraryLoader;

import org.junit.jupiter.api.Test;

/**
 * The library of this JVM's architecture: it loads from its fragment, publishes the kernel's io_uring ABI, and the
 * probe's answer follows what {@code io_uring_setup(2)} answers here. Runs natively on x86_64 (io_uring works) and,
 * in {@code native-fragments/emulation}, on Debian's aarch64 and armv7 JREs under qemu user mode, which has no
 * io_uring: there the transport is unavailable with the {@code ENOSYS} cause, the path of a kernel without io_uring.
 */
class IoUringLibraryTest {

    @Test
    void theLibraryLoadsFromThisArchitecturesFragment() {
        IoUring.availability();
        String how = IoUring.loadedHow();
        assertNotNull(how, "the library did not load: " + IoUring.unavailabilityCause());
        String fragment = "iouring-linux-" + NativeLibraryLoader.arch();
        assertTrue(how.contains(fragment), fragment + " expected in: " + how);
    }

    /** The layouts of include/uapi/linux/io_uring.h, the same on every architecture (32-bit ones included). */
    @Test
    void publishesTheKernelsRingLayouts() {
        IoUring.availability();
        assertEquals(64, NativeAbi.SQE_SIZE);
        assertEquals(0, NativeAbi.SQE_OPCODE);
        assertEquals(4, NativeAbi.SQE_FD);
        assertEquals(8, NativeAbi.SQE_OFF);
        assertEquals(16, NativeAbi.SQE_ADDR);
        assertEquals(24, NativeAbi.SQE_LEN);
        assertEquals(28, NativeAbi.SQE_MSG_FLAGS);
        assertEquals(NativeAbi.SQE_MSG_FLAGS, NativeAbi.SQE_ACCEPT_FLAGS, "one union word");
        assertEquals(NativeAbi.SQE_MSG_FLAGS, NativeAbi.SQE_CANCEL_FLAGS, "one union word");
        assertEquals(32, NativeAbi.SQE_USER_DATA);
        assertEquals(16, NativeAbi.CQE_SIZE);
        assertEquals(0, NativeAbi.CQE_USER_DATA);
        assertEquals(8, NativeAbi.CQE_RES);
        assertEquals(12, NativeAbi.CQE_FLAGS);
        assertEquals(0x10000000, NativeAbi.IORING_OFF_SQES);
    }

    @Test
    void availabilityFollowsWhatIoUringSetupAnswersHere() {
        IoUring.availability();
        int[] params = new int[NativeAbi.PARAMS_LENGTH];
        int fd = Native.ioUringSetup(4, 0, 0, params);
        if (fd >= 0) {
            Native.close(fd);
            assertTrue(IoUring.isAvailable(), String.valueOf(IoUring.unavailabilityCause()));
            assertTrue(params[NativeAbi.PARAMS_SQ_ENTRIES] >= 4, "sq_entries " + params[NativeAbi.PARAMS_SQ_ENTRIES]);
            return;
        }
        assertFalse(IoUring.isAvailable());
        String expected = IoUring.setupFailure(fd, IoUring.readDisabledSysctl()).getMessage();
        assertEquals(expected, IoUring.unavailabilityCause().getMessage());
        System.out.println("[io_uring] unavailable on " + System.getProperty("os.arch") + " as io_uring_setup"
                + " answers here: " + expected);
    }
}
