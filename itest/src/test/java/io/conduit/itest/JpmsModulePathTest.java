package io.conduit.itest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The packaged jars on the JPMS module path only (no class path): a tiny application module
 * ({@code src/test/jpms/io.conduit.itest.jpms}, compiled here with {@code javax.tools} against the packaged API jar)
 * runs in a child JVM of the same JDK as this test (so the pom's two passes cover JDK 17 and the second JDK) with
 * {@code --module-path <app>:<api>:<nio>:<epoll>:<epoll fragment of this arch> --add-modules ALL-MODULE-PATH}, finds the
 * transports with {@code ServiceLoader}, echoes over TCP on every available one and reports the selection and
 * the epoll module's native probe, which must load the library from the fragment jar (an automatic module).
 *
 * <p>In the first pass (JDK 17) the same runs on Debian's JRE 17 for aarch64 and armv7 under qemu user mode, as on an
 * ARM board, with that architecture's fragment jar: {@code native-fragments/emulation/prepare.sh} unpacks the JRE
 * (the directory the emulated epoll tests filled). Those runs work in {@code /dev/shm}: the 32-bit JRE's directory
 * listing fails with {@code EOVERFLOW} on this host's 64-bit ext4 inode numbers under qemu. Without qemu or the
 * foreign architecture in apt they are skipped with one line ({@link ItestFiles#missing}; a failure in CI).
 */
class JpmsModulePathTest {

    private static final String APP_MODULE = "io.conduit.itest.jpms";

    /**
     * @return {@code host}, and in the first pass the emulated architectures whose fragment the build made (the
     *         emulated JRE is 17 whatever the test's JDK, so the second pass would repeat the same run)
     */
    static List<String> jvms() {
        List<String> jvms = new ArrayList<>(List.of("host"));
        if (Runtime.version().feature() == 17) {
            for (String arch : List.of("aarch64", "armv7")) {
                if (ItestFiles.epollFragments().contains("io.conduit.epoll.linux." + arch)) {
                    jvms.add(arch);
                }
            }
        }
        return jvms;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jvms")
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void everyAvailableTransportEchoesOnTheModulePathAndEpollLoadsItsLibraryFromTheFragmentJar(String jvm)
            throws Exception {
        boolean emulated = !jvm.equals("host");
        List<String> launcher = emulated ? emulatedJava(jvm)
                : List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        String arch = emulated ? jvm : hostArch();
        int feature = emulated ? 17 : Runtime.version().feature();
        Path work = emulated ? Files.createTempDirectory(Path.of("/dev/shm"), "conduit-jpms-" + arch + "-")
                : Path.of(ItestFiles.required("conduit.itest.target"), "jpms-jdk" + feature);
        ItestFiles.deleteTree(work);
        Path classes = Files.createDirectories(work.resolve("classes"));
        Path nativeWorkdir = Files.createDirectories(work.resolve("native"));

        Path epollJar = Path.of(ItestFiles.required("conduit.itest.epollJar"));
        List<Path> conduitJars = List.of(Path.of(ItestFiles.required("conduit.itest.apiJar")),
                Path.of(ItestFiles.required("conduit.itest.nioJar")), epollJar,
                Path.of(ItestFiles.required("conduit.itest.handlerJar")),
                fragmentJar(arch));
        for (Path jar : conduitJars) {
            assertTrue(Files.isRegularFile(jar), jar + " is missing: build the reactor (mvn install -DskipTests)");
        }
        String conduitPath = conduitJars.stream().map(Path::toString).collect(Collectors.joining(File.pathSeparator));

        // Compile the application module against the packaged API (module path only).
        Path sources = Path.of(ItestFiles.required("conduit.itest.jpmsSources"), APP_MODULE);
        List<String> javacArgs = new ArrayList<>(List.of("--release", "17", "-d", classes.toString(),
                "--module-path", conduitPath));
        try (Stream<Path> files = Files.walk(sources)) {
            files.filter(p -> p.toString().endsWith(".java")).map(Path::toString).forEach(javacArgs::add);
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertTrue(javac != null, "no system Java compiler: run the tests on a JDK, not a JRE");
        int javacStatus = javac.run(null, System.out, System.err, javacArgs.toArray(new String[0]));
        assertEquals(0, javacStatus, "javac " + javacArgs + " failed (see the test output)");

        List<String> command = new ArrayList<>(launcher);
        if (feature >= 22) {
            // Named module loading a library: without this, JDK 24+ warns (and a later JDK denies).
            command.add("--enable-native-access=io.conduit.epoll");
        }
        command.addAll(List.of("--module-path", classes + File.pathSeparator + conduitPath,
                "--add-modules", "ALL-MODULE-PATH",
                // The app reads the epoll module's (not exported) probe reflectively.
                "--add-opens", "io.conduit.epoll/io.conduit.epoll=" + APP_MODULE,
                "-Dconduit.native.workdir=" + nativeWorkdir,
                "-m", APP_MODULE + "/io.conduit.itest.jpms.EchoEveryTransport"));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(work.resolve("output.txt").toFile());
        pb.environment().remove("CLASSPATH");
        pb.environment().remove("JDK_JAVA_OPTIONS");
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        Process child = pb.start();
        try {
            int seconds = emulated ? 240 : 60;
            assertTrue(child.waitFor(seconds, TimeUnit.SECONDS), "the module-path JVM did not finish within "
                    + seconds + " s: " + command);
        } finally {
            child.destroyForcibly();
        }
        String output = Files.readString(work.resolve("output.txt"), StandardCharsets.UTF_8);
        if (emulated) {
            ItestFiles.deleteTree(work);
        }
        System.out.println("--- module path run on JDK " + feature + " (" + jvm + "): " + String.join(" ", command)
                + "\n" + output);
        assertEquals(0, child.exitValue(), "the module-path JVM failed:\n" + output);
        List<String> lines = output.lines().collect(Collectors.toList());
        assertTrue(lines.contains("DONE"), "no DONE line:\n" + output);
        assertTrue(lines.contains("CLASSPATH "), "the class path must be empty:\n" + output);
        assertTrue(lines.contains("MODULE " + APP_MODULE), output);
        assertTrue(lines.contains("LAYER io.conduit.api io.conduit.epoll io.conduit.epoll.linux." + arch
                + " io.conduit.handler " + APP_MODULE + " io.conduit.nio"), "boot layer modules:\n" + output);
        assertTrue(lines.contains("HANDLER io.conduit.handler"), "the handler module serves its classes:\n" + output);
        assertFalse(output.contains("WARNING"), "the JVM warned:\n" + output);

        // Every available provider echoed what it was sent; nio is always there.
        List<String> available = lines.stream().filter(l -> l.startsWith("PROVIDER ") && l.endsWith(" available"))
                .map(l -> l.split(" ")[1]).collect(Collectors.toList());
        assertTrue(available.contains("nio"), "nio must be available:\n" + output);
        if (feature >= 21) {
            assertTrue(available.contains("nio-vthread"), "nio-vthread must be available on " + feature + ":\n"
                    + output);
        }
        for (String name : available) {
            assertTrue(lines.contains("ECHO " + name + " hello over " + name), name + " did not echo:\n" + output);
        }

        // The native library came out of the fragment jar, an automatic module on the module path.
        assertTrue(lines.contains("EPOLL_PROBE available"), "epoll's native probe failed:\n" + output);
        String fragmentName = fragmentJar(arch).getFileName().toString();
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("EPOLL_LOADED extracted jar:")
                        && l.contains(fragmentName + "!/META-INF/native/libconduit_epoll_" + arch + ".so")),
                "the library must be extracted from " + fragmentName + ":\n" + output);

        // epoll, the highest-ranked transport, is found through its module's "provides" and selected by auto.
        assertTrue(available.contains("epoll"), "the epoll provider must be available:\n" + output);
        assertTrue(lines.contains("SELECTED epoll"), "auto must select epoll:\n" + output);
    }

    /** The native-fragment arch of this machine: {@code x86_64} or {@code aarch64}. */
    private static String hostArch() {
        String arch = System.getProperty("os.arch");
        return arch.equals("aarch64") || arch.equals("arm64") ? "aarch64" : "x86_64";
    }

    /** The epoll fragment jar of {@code arch} (an automatic module on the module path). */
    private static Path fragmentJar(String arch) {
        return Path.of(ItestFiles.required(ItestFiles.epollFragmentJarProperty("io.conduit.epoll.linux." + arch)));
    }

    /**
     * @return the command that starts Debian's JRE 17 for {@code arch} under qemu user mode, with C1 only and the
     *         serial collector (the emulated JIT and GC threads cost more than they save in a run this short)
     */
    private static List<String> emulatedJava(String arch) throws Exception {
        String qemu = arch.equals("armv7") ? "qemu-arm-static" : "qemu-aarch64-static";
        String debArch = arch.equals("armv7") ? "armhf" : "arm64";
        Path qemuPath = ItestFiles.onPath(qemu);
        if (qemuPath == null) {
            Assumptions.assumeTrue(false, ItestFiles.missing("'" + qemu + "' is not on the PATH",
                    "install it with 'apt-get install -y qemu-user-static'"));
        }
        Path script = Path.of(ItestFiles.required("conduit.emulation.prepare"));
        Path root = Path.of(ItestFiles.required("conduit.emulation.target")).resolve("root-" + arch);
        Process p = new ProcessBuilder(script.toString(), arch, root.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(300, TimeUnit.SECONDS), script + " " + arch + " did not finish in 300 s:\n" + out);
        if (p.exitValue() == 3) {
            Assumptions.assumeTrue(false, ItestFiles.missing("apt knows no " + debArch + " packages",
                    "run 'dpkg --add-architecture " + debArch + " && apt-get update'"));
        }
        assertEquals(0, p.exitValue(), script + " " + arch + " failed:\n" + out);
        List<String> lines = out.lines().collect(Collectors.toList());
        String java = lines.get(lines.size() - 1);
        String rootDir = java.substring(0, java.indexOf("/usr/lib/jvm/"));
        return List.of(qemuPath.toString(), "-L", rootDir, java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");
    }
}
