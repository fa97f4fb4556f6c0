package io.conduit.iouring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.transport.Availability;
import io.conduit.transport.UnavailableTransportException;
import io.conduit.transport.spi.NativeLibraryLoader;

import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * The probe and the causes of unavailability. The real path runs on this machine (io_uring allowed, fragment on the
 * class path) and fails, never skips, when the library cannot load; the causes of a failed
 * {@code io_uring_setup(2)} (old kernel, sysctl, seccomp) are checked on the mapping itself.
 */
class IoUringAvailabilityTest {

    @Test
    void availableWithTheLibraryExtractedFromTheFragmentJar() {
        IoUring.ensureAvailability();
        assertTrue(IoUring.isAvailable());
        assertNull(IoUring.unavailabilityCause());
        String fragment = "iouring-linux-" + NativeLibraryLoader.arch();
        assertTrue(IoUring.loadedHow().contains(fragment), fragment + " expected in: " + IoUring.loadedHow());
    }

    @Test
    void noNativePropertyMakesItUnavailableWithoutLoadingAnything() {
        Availability a = IoUring.probe(key -> IoUring.NO_NATIVE_PROPERTY.equals(key) ? "true"
                : System.getProperty(key));
        assertFalse(a.isAvailable());
        assertTrue(a.unavailabilityCause().getMessage().contains("conduit.noNative=true"),
                a.unavailabilityCause().getMessage());
        UnavailableTransportException e = assertThrows(UnavailableTransportException.class,
                () -> a.ensureAvailability(IoUring.NAME));
        assertTrue(e.getMessage().contains("io_uring"), e.getMessage());
    }

    @Test
    void otherOperatingSystemsAreUnavailableWithTheirName() {
        Availability a = IoUring.probe(key -> "os.name".equals(key) ? "FreeBSD" : null);
        assertFalse(a.isAvailable());
        assertTrue(a.unavailabilityCause().getMessage().contains("io_uring needs Linux; this is FreeBSD"));
    }

    @Test
    void enosysMeansAnOldKernelOrASeccompFilter() {
        IoUring.ensureAvailability();
        String m = IoUring.setupFailure(-NativeAbi.ENOSYS, null).getMessage();
        assertTrue(m.startsWith("io_uring is unavailable: io_uring_setup(..) failed: "), m);
        assertTrue(m.contains("(errno " + NativeAbi.ENOSYS + ")"), m);
        assertTrue(m.contains("older than 5.1") && m.contains("CONFIG_IO_URING") && m.contains("seccomp"), m);
    }

    @Test
    void epermNamesTheSysctlThatDisablesIoUring() {
        IoUring.ensureAvailability();
        String never = IoUring.setupFailure(-NativeAbi.EPERM, "2").getMessage();
        assertTrue(never.contains("io_uring is disabled by kernel.io_uring_disabled=2"), never);
        String group = IoUring.setupFailure(-NativeAbi.EPERM, "1").getMessage();
        assertTrue(group.contains("io_uring is disabled by kernel.io_uring_disabled=1")
                && group.contains("kernel.io_uring_group"), group);
    }

    @Test
    void epermWithIoUringAllowedMeansASeccompFilterOrASecurityModule() {
        IoUring.ensureAvailability();
        for (String sysctl : new String[] {"0", null}) {
            String m = IoUring.setupFailure(-NativeAbi.EPERM, sysctl).getMessage();
            assertTrue(m.contains("blocked by a seccomp filter") && m.contains("(errno " + NativeAbi.EPERM + ")"), m);
            assertEquals(sysctl != null, m.contains("kernel.io_uring_disabled=0"), m);
        }
    }

    @Test
    void aRealSetupFailureIsExplainedToo() {
        IoUring.ensureAvailability();
        int[] params = new int[NativeAbi.PARAMS_LENGTH];
        int r = Native.ioUringSetup(0, 0, 0, params); // 0 entries: EINVAL
        assertEquals(-NativeAbi.EINVAL, r);
        String m = IoUring.setupFailure(r, IoUring.readDisabledSysctl()).getMessage();
        assertTrue(m.contains("Invalid argument") && m.contains("no ring could be created"), m);
    }

    @Test
    void thisKernelAllowsIoUring() {
        String sysctl = IoUring.readDisabledSysctl();
        assertTrue(sysctl == null || sysctl.equals("0"), "kernel.io_uring_disabled=" + sysctl);
    }

    @Test
    void aMissingOpcodeIsNamed() {
        IoUring.ensureAvailability();
        Map<String, Integer> required = IoUring.requiredOpcodes();
        byte[] all = new byte[256];
        required.values().forEach(op -> all[op] = 1);
        assertNull(IoUring.missingOpcode(all, required));
        byte[] noConnect = all.clone();
        noConnect[NativeAbi.IORING_OP_CONNECT] = 0;
        assertEquals("IORING_OP_CONNECT", IoUring.missingOpcode(noConnect, required));
        Map<String, Integer> beyond = new LinkedHashMap<>(required);
        beyond.put("IORING_OP_FROM_THE_FUTURE", 300);
        assertEquals("IORING_OP_FROM_THE_FUTURE", IoUring.missingOpcode(all, beyond));
    }

    @Test
    void aMissingFeatureIsNamed() {
        IoUring.ensureAvailability();
        assertEquals("IORING_FEAT_NODROP", IoUring.missingFeature(NativeAbi.IORING_FEAT_EXT_ARG));
        assertEquals("IORING_FEAT_EXT_ARG", IoUring.missingFeature(NativeAbi.IORING_FEAT_NODROP));
        assertNull(IoUring.missingFeature(NativeAbi.IORING_FEAT_NODROP | NativeAbi.IORING_FEAT_EXT_ARG));
    }

    @Test
    void thisKernelHasEveryOpcodeTheTransportSubmits() throws Exception {
        IoUring.ensureAvailability();
        IoUringRing ring = IoUringRing.create();
        try {
            byte[] supported = new byte[256];
            assertTrue(Native.ioUringProbe(ring.fd(), supported) > NativeAbi.IORING_OP_CONNECT);
            assertNull(IoUring.missingOpcode(supported, IoUring.requiredOpcodes()));
            assertTrue(ring.singleIssuer(), "Linux 6.0+ sets the ring up single issuer: " + ring);
        } finally {
            ring.close();
        }
    }
}
