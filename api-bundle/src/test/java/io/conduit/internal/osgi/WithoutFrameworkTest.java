package io.conduit.internal.osgi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import io.conduit.transport.Diagnostics;
import org.junit.jupiter.api.Test;

/**
 * The API works with no OSGi jar anywhere: a child JVM given only the API's classes, on the class path and on the
 * module path, prints the diagnostics report and loads no {@code org.osgi} class; a run leaves no file behind.
 */
class WithoutFrameworkTest {

    /**
     * Runs the child with its class-load log and output in a directory of their own, which is deleted afterwards with
     * everything in it: {@code -Xlog:...:file=} rotates a file that already exists to {@code <name>.0} (which is
     * why the log file is not made beforehand), and a rotated or extra file would otherwise stay in the temporary
     * directory after every run.
     */
    private static String run(List<String> pathOptions) throws Exception {
        Path classes = Paths.get(Diagnostics.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path dir = Files.createTempDirectory("conduit-noosgi");
        try {
            return run(classes, dir, pathOptions);
        } finally {
            deleteTree(dir);
            assertFalse(Files.exists(dir), "the child's files are gone: " + dir);
        }
    }

    private static String run(Path classes, Path dir, List<String> pathOptions) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        Path classLog = dir.resolve("classes.log"); // made by the JVM: an existing file would be rotated to .0
        cmd.add("-Xlog:class+load=info:file=" + classLog + "::filecount=0");
        for (String o : pathOptions) {
            cmd.add(o.replace("CLASSES", classes.toString()));
        }
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        pb.environment().remove("JDK_JAVA_OPTIONS");
        pb.redirectErrorStream(true);
        Path out = dir.resolve("child.out");
        pb.redirectOutput(out.toFile());
        Process p = pb.start();
        p.getOutputStream().close();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            throw new AssertionError("child JVM did not finish within 60 s: " + cmd);
        }
        String text = Files.readString(out, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), cmd + "\n" + text);
        try (Stream<Path> files = Files.list(dir)) {
            List<String> names = files.map(f -> f.getFileName().toString()).sorted().collect(Collectors.toList());
            assertEquals(List.of("child.out", "classes.log"), names, "no rotated log beside the one written");
        }
        String loaded = Files.readString(classLog, StandardCharsets.UTF_8);
        assertTrue(loaded.contains("io.conduit.transport.Diagnostics"), "class log works:\n" + loaded);
        assertFalse(loaded.lines().anyMatch(l -> l.contains("org.osgi.")), "an org.osgi class was loaded:\n"
                + loaded);
        return text;
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        }
    }

    private static void assertReportWithoutOsgi(String out) {
        assertTrue(out.contains("Conduit diagnostics"), out);
        assertTrue(out.contains("No transport is registered."), out);
    }

    @Test
    void classPathNeedsNoOsgiJar() throws Exception {
        assertReportWithoutOsgi(run(List.of("-cp", "CLASSES", Diagnostics.class.getName())));
    }

    @Test
    void modulePathNeedsNoOsgiModule() throws Exception {
        String out = run(List.of("--show-module-resolution", "-p", "CLASSES", "-m",
                "io.conduit.api/" + Diagnostics.class.getName()));
        assertReportWithoutOsgi(out);
        assertTrue(out.contains("root io.conduit.api "), "ran as the named module:\n" + out);
    }
}
