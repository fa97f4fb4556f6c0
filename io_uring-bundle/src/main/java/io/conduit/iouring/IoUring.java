package io.conduit.iouring;

import static io.conduit.iouring.NativeAbi.ERRORS;

import io.conduit.transport.Availability;
import io.conduit.transport.UnavailableTransportException;
import io.conduit.transport.spi.NativeLibraryLoader;
import io.conduit.transport.spi.unix.NativeTransportProbe;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * Whether the io_uring transport can run here (unavailability is a value). The probe runs once, when this class
 * initialises: unless {@code conduit.noNative=true}, it loads {@code libconduit_iouring_<arch>.so} through
 * {@link NativeLibraryLoader}, creates a real ring ({@code io_uring_setup(2)}), checks the features the transport
 * relies on ({@code IORING_FEAT_NODROP}, {@code IORING_FEAT_EXT_ARG}) and, with {@code IORING_REGISTER_PROBE},
 * every opcode it submits, then closes the ring.
 *
 * <p>A failed {@code io_uring_setup} is explained ({@link #setupFailure}): {@code ENOSYS} means a kernel without
 * io_uring or a seccomp filter that blocks it (Docker's default profile); {@code EPERM} means
 * {@code kernel.io_uring_disabled} forbids it (2, or 1 outside {@code kernel.io_uring_group}) or, with the sysctl
 * at 0, a seccomp filter or security module. Selection then falls through to the next transport.
 *
 * <p>Thread-safe: the answer is computed once by class initialisation and never changes.
 */
final class IoUring {

    /** System property that disables every native transport. */
    static final String NO_NATIVE_PROPERTY = NativeTransportProbe.NO_NATIVE_PROPERTY;

    /** the transport's name in messages and selection */
    static final String NAME = "io_uring";

    /** the sysctl that disables io_uring (Linux 6.6+): 0 allowed, 1 only for {@code io_uring_group}, 2 never */
    static final Path DISABLED_SYSCTL = Path.of("/proc/sys/kernel/io_uring_disabled");

    /** how the library was loaded, or {@code null}; written once during initialisation */
    private static volatile String loadedHow;

    private static final Availability AVAILABILITY = probe(System::getProperty);

    private IoUring() {
    }

    static boolean isAvailable() {
        return AVAILABILITY.isAvailable();
    }

    static Throwable unavailabilityCause() {
        return AVAILABILITY.unavailabilityCause();
    }

    /** @throws UnavailableTransportException with {@link #unavailabilityCause()} as cause when unavailable */
    static void ensureAvailability() {
        AVAILABILITY.ensureAvailability(NAME);
    }

    static Availability availability() {
        return AVAILABILITY;
    }

    /** @return how the library was loaded (for diagnostics), or {@code null} */
    static String loadedHow() {
        return loadedHow;
    }

    /** @return the library name for this JVM's architecture, e.g. {@code conduit_iouring_x86_64} */
    static String libraryName() {
        return "conduit_iouring_" + NativeLibraryLoader.arch();
    }

    /**
     * The opcodes the transport submits, by name; a kernel without one of them cannot run it.
     * Read from the library, so call it only once the library is loaded.
     */
    static Map<String, Integer> requiredOpcodes() {
        Map<String, Integer> ops = new LinkedHashMap<>();
        ops.put("IORING_OP_NOP", NativeAbi.IORING_OP_NOP);
        ops.put("IORING_OP_READ", NativeAbi.IORING_OP_READ);
        ops.put("IORING_OP_RECV", NativeAbi.IORING_OP_RECV);
        ops.put("IORING_OP_SEND", NativeAbi.IORING_OP_SEND);
        ops.put("IORING_OP_ACCEPT", NativeAbi.IORING_OP_ACCEPT);
        ops.put("IORING_OP_CONNECT", NativeAbi.IORING_OP_CONNECT);
        ops.put("IORING_OP_ASYNC_CANCEL", NativeAbi.IORING_OP_ASYNC_CANCEL);
        ops.put("IORING_OP_POLL_ADD", NativeAbi.IORING_OP_POLL_ADD);
        return ops;
    }

    /**
     * The probe; package-private so tests can run it with other system properties.
     *
     * @param properties system-property lookup
     */
    static Availability probe(UnaryOperator<String> properties) {
        return NativeTransportProbe.probeLinux(NAME, properties, () -> {
            loadedHow = NativeLibraryLoader.load(libraryName(), IoUring.class, System::loadLibrary, System::load);
            int[] params = new int[NativeAbi.PARAMS_LENGTH];
            int fd = Native.ioUringSetup(4, 0, 0, params);
            if (fd < 0) {
                throw setupFailure(fd, readDisabledSysctl());
            }
            try {
                checkRing(fd, params[NativeAbi.PARAMS_FEATURES]);
            } finally {
                Native.close(fd);
            }
        });
    }

    /** Checks the features and opcodes of a freshly set up ring. */
    private static void checkRing(int fd, int features) throws IOException {
        String feature = missingFeature(features);
        if (feature != null) {
            throw new UnsupportedOperationException("io_uring on this kernel lacks " + feature
                    + " (Linux 5.11+ has it); the io_uring transport needs it");
        }
        byte[] supported = new byte[256];
        int r = Native.ioUringProbe(fd, supported);
        if (r < 0) {
            throw ERRORS.newIoException("io_uring_register(IORING_REGISTER_PROBE)", r);
        }
        String opcode = missingOpcode(supported, requiredOpcodes());
        if (opcode != null) {
            throw new UnsupportedOperationException("io_uring on this kernel does not support " + opcode
                    + " (IORING_REGISTER_PROBE); the io_uring transport needs it");
        }
    }

    /** @return the name of the first feature bit the transport needs that {@code features} lacks, or {@code null} */
    static String missingFeature(int features) {
        if ((features & NativeAbi.IORING_FEAT_NODROP) == 0) {
            return "IORING_FEAT_NODROP";
        }
        if ((features & NativeAbi.IORING_FEAT_EXT_ARG) == 0) {
            return "IORING_FEAT_EXT_ARG";
        }
        return null;
    }

    /** @return the name of the first required opcode not marked in {@code supported}, or {@code null} */
    static String missingOpcode(byte[] supported, Map<String, Integer> required) {
        for (Map.Entry<String, Integer> e : required.entrySet()) {
            int op = e.getValue();
            if (op < 0 || op >= supported.length || supported[op] == 0) {
                return e.getKey();
            }
        }
        return null;
    }

    /** @return the trimmed content of {@link #DISABLED_SYSCTL}, or {@code null} when it cannot be read (before 6.6) */
    static String readDisabledSysctl() {
        try {
            return Files.readString(DISABLED_SYSCTL, StandardCharsets.US_ASCII).trim();
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * Explains a failed {@code io_uring_setup(2)}.
     *
     * @param result          its {@code -errno}
     * @param disabledSysctl  the value of {@code kernel.io_uring_disabled}, or {@code null} when the kernel has none
     * @return the cause of unavailability, naming the system call, the errno and what it means here
     */
    static UnsupportedOperationException setupFailure(int result, String disabledSysctl) {
        String call = ERRORS.message("io_uring_setup", -result);
        String why;
        if (result == -NativeAbi.ENOSYS) {
            why = "the kernel has no io_uring (older than 5.1, or built without CONFIG_IO_URING), or a seccomp"
                    + " filter blocks it (Docker's default profile answers ENOSYS)";
        } else if (result == -NativeAbi.EPERM && "2".equals(disabledSysctl)) {
            why = "io_uring is disabled by kernel.io_uring_disabled=2";
        } else if (result == -NativeAbi.EPERM && "1".equals(disabledSysctl)) {
            why = "io_uring is disabled by kernel.io_uring_disabled=1 for processes outside the group"
                    + " kernel.io_uring_group";
        } else if (result == -NativeAbi.EPERM) {
            why = "io_uring is blocked by a seccomp filter (e.g. a container's profile) or a security module"
                    + (disabledSysctl == null ? "" : " (kernel.io_uring_disabled=" + disabledSysctl + ")");
        } else {
            why = "no ring could be created";
        }
        return new UnsupportedOperationException("io_uring is unavailable: " + call + ": " + why);
    }
}
