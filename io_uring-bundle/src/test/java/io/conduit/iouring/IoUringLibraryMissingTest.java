package io.conduit.iouring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.transport.Availability;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Without its fragment the transport is unavailable, with every load attempt in the cause, and the selection goes on
 * to the next transport: a child JVM runs {@link #main} on this test class path minus the fragment jar.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class IoUringLibraryMissingTest {

    /** In the child JVM: prints the availability and what {@code auto} selected. */
    public static void main(String[] args) {
        Availability a = IoUring.availability();
        System.out.println("AVAILABLE " + a.isAvailable());
        Throwable cause = a.unavailabilityCause();
        System.out.println("CAUSE " + (cause == null ? "none" : cause.getMessage()));
        System.out.println("ATTEMPTS " + (cause == null ? 0 : cause.getSuppressed().length));
        System.out.println("SELECTED " + io.conduit.transport.Transports.selected().name());
    }

    @Test
    void withoutTheFragmentItIsUnavailableNamingTheLibraryAndAutoSelectsAnotherTransport() throws Exception {
        String classPath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(e -> !e.contains("conduit-native-iouring-linux"))
                .collect(Collectors.joining(File.pathSeparator));
        List<String> command = new ArrayList<>(List.of(
                System.getProperty("java.home") + File.separator + "bin" + File.separator + "java",
                "-cp", classPath, IoUringLibraryMissingTest.class.getName()));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("AVAILABLE false"), out);
        assertTrue(out.contains("cannot load native library '" + IoUring.libraryName() + "'"), out);
        assertTrue(out.contains("ATTEMPTS 3"), "each load attempt is attached: " + out);
        assertTrue(!out.contains("SELECTED io_uring") && out.contains("SELECTED "), out);
    }
}
