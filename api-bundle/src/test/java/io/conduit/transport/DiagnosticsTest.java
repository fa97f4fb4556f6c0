package io.conduit.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/** The report through its public entry points, in this JVM and in child JVMs (the {@code java -jar} path). */
class DiagnosticsTest {

    @Test
    void mainPrintsTheReport() {
        PrintStream saved = System.out;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
            Diagnostics.main(new String[0]);
        } finally {
            System.setOut(saved);
        }
        String out = bytes.toString(StandardCharsets.UTF_8);
        assertTrue(out.startsWith("Conduit diagnostics\n"), out);
        for (String expected : List.of("Conduit version: ", "JDK: ", "java.home=", "OSGi processor=",
                "sun.misc.Unsafe: ", "conduit.transport = ", "conduit.leakDetection = ", "Native access",
                "Transports", "Selection", "selected: ")) {
            assertTrue(out.contains(expected), expected + " missing in\n" + out);
        }
        assertEquals(Diagnostics.report(), out);
    }

    /** Every JDK to run the child on: this one, and each JDK 23+ under /usr/lib/jvm (memory-access modes). */
    private static Map<Path, Integer> jdks() throws IOException {
        Map<Path, Integer> jdks = new LinkedHashMap<>();
        jdks.put(Paths.get(System.getProperty("java.home")).toRealPath(), Runtime.version().feature());
        Path jvmDir = Paths.get("/usr/lib/jvm");
        if (Files.isDirectory(jvmDir)) {
            try (Stream<Path> dirs = Files.list(jvmDir)) {
                for (Path d : (Iterable<Path>) dirs::iterator) {
                    Path release = d.resolve("release");
                    if (!Files.isRegularFile(release) || !Files.isExecutable(d.resolve("bin/java"))) {
                        continue;
                    }
                    Properties p = new Properties();
                    try (var in = Files.newInputStream(release)) {
                        p.load(in);
                    }
                    String v = p.getProperty("JAVA_VERSION", "\"0\"").replace("\"", "");
                    int feature = Integer.parseInt(v.split("[.+-]")[0]);
                    if (feature >= 23) {
                        jdks.putIfAbsent(d.toRealPath(), feature);
                    }
                }
            }
        }
        return jdks;
    }

    private static String[] run(Path javaHome, List<String> jvmOptions) throws Exception {
        Path classes = Paths.get(Diagnostics.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<String> cmd = new ArrayList<>();
        cmd.add(javaHome.resolve("bin/java").toString());
        cmd.addAll(jvmOptions);
        cmd.add("-cp");
        cmd.add(classes.toString());
        cmd.add(Diagnostics.class.getName());
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        pb.environment().remove("JDK_JAVA_OPTIONS");
        Path err = Files.createTempFile("conduit-diag", ".err");
        try {
            pb.redirectError(err.toFile());
            Process p = pb.start();
            p.getOutputStream().close();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "child JVM did not finish: " + cmd);
            String stderr = Files.readString(err);
            assertEquals(0, p.exitValue(), cmd + "\nstdout:\n" + out + "\nstderr:\n" + stderr);
            return new String[] {out, stderr};
        } finally {
            Files.deleteIfExists(err);
        }
    }

    @Test
    void childJvmsPrintTheReportAndNoWarningInEveryUnsafeMode() throws Exception {
        int runs = 0;
        for (Map.Entry<Path, Integer> jdk : jdks().entrySet()) {
            int feature = jdk.getValue();
            Map<List<String>, String> cases = new LinkedHashMap<>();
            cases.put(List.of(), feature >= 24 ? "sun.misc.Unsafe: not used: the JVM would warn"
                    : "sun.misc.Unsafe: available");
            cases.put(List.of("-Dconduit.noUnsafe=true"), "sun.misc.Unsafe: disabled by conduit.noUnsafe");
            if (feature >= 23) {
                cases.put(List.of("--sun-misc-unsafe-memory-access=warn"), "sun.misc.Unsafe: not used: the JVM would warn");
                cases.put(List.of("--sun-misc-unsafe-memory-access=deny", "--enable-native-access=ALL-UNNAMED"),
                        "sun.misc.Unsafe: denied by the JVM");
            }
            if (feature >= 24) {
                cases.put(List.of("--illegal-native-access=deny"), "(ALL-UNNAMED): denied (--illegal-native-access=deny)");
            }
            for (Map.Entry<List<String>, String> c : cases.entrySet()) {
                String[] result = run(jdk.getKey(), c.getKey());
                String context = "JDK " + jdk.getKey() + " " + c.getKey() + "\nstdout:\n" + result[0]
                        + "\nstderr:\n" + result[1];
                assertTrue(result[0].startsWith("Conduit diagnostics"), context);
                assertTrue(result[0].contains(c.getValue()), context);
                assertTrue(result[0].contains("No transport is registered."), context);
                assertFalse(result[1].lines().anyMatch(l -> l.contains("WARNING")), context);
                if (c.getKey().contains("--enable-native-access=ALL-UNNAMED")) {
                    assertTrue(result[0].contains("(ALL-UNNAMED): enabled (--enable-native-access=ALL-UNNAMED)"),
                            context);
                } else if (c.getKey().contains("--illegal-native-access=deny")) {
                    assertTrue(result[0].contains("(ALL-UNNAMED): denied"), context);
                } else if (feature >= 22) {
                    assertTrue(result[0].contains("(ALL-UNNAMED): allowed with a warning (JDK default; add"
                            + " --enable-native-access=ALL-UNNAMED)"), context);
                } else {
                    assertTrue(result[0].contains("not needed: JDK " + feature), context);
                }
                runs++;
            }
        }
        assertTrue(runs >= 2, "at least this JVM was checked");
    }
}
