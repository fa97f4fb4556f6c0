package io.conduit.internal.osgi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.conduit.transport.Diagnostics;
import org.junit.jupiter.api.Test;

/**
 * The API works with no OSGi jar anywhere: a child JVM given only the API's classes, on the class path and on the
 * module path, prints the diagnostics report and loads no {@code org.osgi} class.
 */
class WithoutFrameworkTest {

    private static String run(List<String> pathOptions) throws Exception {
        Path classes = Paths.get(Diagnostics.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<String> cmd = new ArrayList<>();
        cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        Path classLog = Files.createTempFile("conduit-noosgi", ".classes");
        cmd.add("-Xlog:class+load=info:file=" + classLog);
        for (String o : pathOptions) {
            cmd.add(o.replace("CLASSES", classes.toString()));
        }
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        pb.environment().remove("JDK_JAVA_OPTIONS");
        pb.redirectErrorStream(true);
        Path out = Files.createTempFile("conduit-noosgi", ".out");
        try {
            pb.redirectOutput(out.toFile());
            Process p = pb.start();
            p.getOutputStream().close();
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "child JVM did not finish: " + cmd);
            String text = Files.readString(out, StandardCharsets.UTF_8);
            assertEquals(0, p.exitValue(), cmd + "\n" + text);
            String loaded = Files.readString(classLog, StandardCharsets.UTF_8);
            assertTrue(loaded.contains("io.conduit.transport.Diagnostics"), "class log works:\n" + loaded);
            assertFalse(loaded.lines().anyMatch(l -> l.contains("org.osgi.")), "an org.osgi class was loaded:\n"
                    + loaded);
            return text;
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(classLog);
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
