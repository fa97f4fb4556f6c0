package io.conduit.itest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The {@code conduit} Karaf feature in a real Apache Karaf 4.4.10 (the distribution the build fetched from Maven
 * Central to {@code target/karaf-dist}), run on a JDK 17 (Karaf 4.4's shell fails on JDK 25), first test pass only.
 *
 * <p>Steps: unpack a fresh Karaf into {@code target/karaf-test}; enable the {@code karaf} user and its admin group;
 * move SSH and RMI to free ports on 127.0.0.1; stage the freshly packaged Conduit jars and the features file in a
 * Maven-layout folder that Karaf's pax-url-mvn searches first (so an out-of-date jar in ~/.m2 is never tested;
 * third-party bundles come from ~/.m2, filled by the build; Central is the only remote repository, none under
 * {@code mvn -o});
 * {@code bin/karaf server}; {@code feature:repo-add mvn:io.conduit/conduit-itest/<version>/xml/features},
 * {@code feature:install conduit} and {@code conduit:transports} through {@code bin/client -b}; then
 * {@code bin/stop}. The Karaf process tree is killed in any case.
 *
 * <p>The test is skipped, with one line printed, only when no JDK 17 exists (neither this JVM nor under
 * {@code /usr/lib/jvm}); with {@code CONDUIT_REQUIRE_TOOLS=true} in the environment (CI) it fails instead. The
 * feature lists the aarch64 fragment only when the build made its library (itest/pom.xml), and the test checks that.
 */
class KarafFeatureTest {

    private static final Pattern NIO_AVAILABLE = Pattern.compile("(?m)^[* ] nio\\s+java\\s+\\d+\\s+yes");
    private static final Pattern EPOLL_SELECTED = Pattern.compile("(?m)^\\* epoll\\s+native\\s+\\d+\\s+yes");

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void conduitFeatureInstallsAndItsCommandListsTheTransports() throws Exception {
        long startNanos = System.nanoTime();
        Path jdk17 = findJdk17();
        if (jdk17 == null) {
            String reason = "no JDK 17 (this JVM is " + Runtime.version() + ", and none under /usr/lib/jvm): Karaf"
                    + " 4.4's shell does not run on newer JDKs; install one with 'apt-get install -y"
                    + " openjdk-17-jdk-headless'";
            assertFalse("true".equals(System.getenv("CONDUIT_REQUIRE_TOOLS")),
                    "[tools] FAILED: KarafFeatureTest needs " + reason + " (CONDUIT_REQUIRE_TOOLS=true forbids skipping)");
            System.out.println("[tools] SKIPPED: KarafFeatureTest: " + reason);
            Assumptions.assumeTrue(false, reason);
        }
        String version = ItestFiles.required("conduit.itest.version");
        Path work = Path.of(ItestFiles.required("conduit.itest.target"), "karaf-test");
        ItestFiles.deleteTree(work);
        Files.createDirectories(work);

        // A fresh Karaf.
        Path tarball = Path.of(ItestFiles.required("conduit.itest.karafTarball"));
        assertTrue(Files.isRegularFile(tarball), tarball + " is missing: the build copies it (maven-dependency-plugin)");
        run(work, Map.of(), 60, "tar", "xzf", tarball.toString(), "-C", work.toString());
        Path karaf;
        try (Stream<Path> dirs = Files.list(work)) {
            karaf = dirs.filter(Files::isDirectory).findFirst().orElseThrow();
        }
        Path etc = karaf.resolve("etc");

        // The karaf user and its admin group (commented out in the distribution).
        Path users = etc.resolve("users.properties");
        String usersText = Files.readString(users).replace("#karaf = karaf,_g_:admingroup", "karaf = karaf,_g_:admingroup")
                .replace("#_g_\\:admingroup = ", "_g_\\:admingroup = ");
        assertTrue(usersText.contains("\nkaraf = karaf,_g_:admingroup") && usersText.contains("\n_g_\\:admingroup = "),
                "could not enable the karaf user in " + users);
        Files.writeString(users, usersText);

        int sshPort = freePort();
        setCfg(etc.resolve("org.apache.karaf.shell.cfg"), "sshPort", Integer.toString(sshPort));
        setCfg(etc.resolve("org.apache.karaf.shell.cfg"), "sshHost", "127.0.0.1");
        setCfg(etc.resolve("org.apache.karaf.management.cfg"), "rmiRegistryPort", Integer.toString(freePort()));
        setCfg(etc.resolve("org.apache.karaf.management.cfg"), "rmiServerPort", Integer.toString(freePort()));

        // Our jars and the features file in a Maven-layout folder searched before anything else.
        Path staging = work.resolve("repo");
        stage(staging, "conduit-api", version, "jar", "conduit.itest.apiJar");
        stage(staging, "conduit-nio", version, "jar", "conduit.itest.nioJar");
        stage(staging, "conduit-handler", version, "jar", "conduit.itest.handlerJar");
        stage(staging, "conduit-epoll", version, "jar", "conduit.itest.epollJar");
        stage(staging, "conduit-native-epoll-linux-x86_64", version, "jar", "conduit.itest.epollX86Jar");
        if (ItestFiles.epollFragments().contains("io.conduit.epoll.linux.aarch64")) {
            stage(staging, "conduit-native-epoll-linux-aarch64", version, "jar", "conduit.itest.epollAarch64Jar");
        }
        stage(staging, "conduit-kqueue", version, "jar", "conduit.itest.kqueueJar");
        stage(staging, "conduit-itest", version, "features.xml", "conduit.itest.featuresXml");
        boolean aarch64 = ItestFiles.epollFragments().contains("io.conduit.epoll.linux.aarch64");
        String features = Files.readString(Path.of(ItestFiles.required("conduit.itest.featuresXml")));
        assertEquals(aarch64, features.contains("mvn:io.conduit/conduit-native-epoll-linux-aarch64/"),
                "the feature lists the aarch64 fragment exactly when the build made its library:\n" + features);
        Path mvnCfg = etc.resolve("org.ops4j.pax.url.mvn.cfg");
        setCfg(mvnCfg, "org.ops4j.pax.url.mvn.defaultRepositories", staging.toUri() + "@id=conduit.build@snapshots,"
                + " ${karaf.home.uri}${karaf.default.repository}@id=system.repository@snapshots,"
                + " ${karaf.data.uri}kar@id=kar.repository@multi@snapshots");
        // Central only (Karaf's scr feature needs org.apache.karaf.scr.management, which only Karaf can fetch);
        // nothing remote when Maven runs offline.
        boolean offline = "offline:true".equals(System.getProperty("conduit.itest.offline"));
        setCfg(mvnCfg, "org.ops4j.pax.url.mvn.repositories", offline ? "" : "https://repo1.maven.org/maven2@id=central");
        setCfg(mvnCfg, "org.ops4j.pax.url.mvn.offline", Boolean.toString(offline));
        setCfg(mvnCfg, "org.ops4j.pax.url.mvn.localRepository", ItestFiles.required("conduit.itest.localRepository"));

        Map<String, String> env = Map.of("JAVA_HOME", jdk17.toString());
        ProcessBuilder pb = new ProcessBuilder(karaf.resolve("bin/karaf").toString(), "server").directory(karaf.toFile())
                .redirectErrorStream(true).redirectOutput(work.resolve("karaf-console.log").toFile());
        pb.environment().putAll(env);
        pb.environment().remove("JAVA_OPTS");
        pb.environment().remove("EXTRA_JAVA_OPTS");
        Process server = pb.start();
        try {
            waitForPort(server, sshPort, 90, karaf);
            long bootMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);

            String repoAdd = client(karaf, work, env, sshPort, "feature:repo-add mvn:io.conduit/conduit-itest/" + version
                    + "/xml/features\nfeature:install conduit\n");
            assertTrue(!repoAdd.contains("Error") && !repoAdd.contains("Exception"),
                    "feature:repo-add / feature:install failed:\n" + repoAdd + logTail(karaf));

            // The API bundle's commands are plain services: Karaf's shell picks them up once the bundle started.
            // Karaf's batch mode (-b) does not print a command's returned value (the console does), so the text
            // goes through "| cat".
            String transports = "";
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (System.nanoTime() < deadline && !NIO_AVAILABLE.matcher(transports).find()) {
                transports = client(karaf, work, env, sshPort, "conduit:transports | cat\n");
            }
            String bundles = client(karaf, work, env, sshPort, "bundle:list -s\n");
            System.out.println("--- Karaf " + karaf.getFileName() + " on " + jdk17 + ": conduit:transports\n" + transports
                    + "\n--- bundle:list -s\n" + bundles);

            assertTrue(NIO_AVAILABLE.matcher(transports).find(), "nio must be listed as available:\n" + transports
                    + logTail(karaf));
            for (String bsn : List.of("io.conduit.api", "io.conduit.nio", "io.conduit.epoll", "io.conduit.kqueue")) {
                assertTrue(Pattern.compile("(?m)\\bActive\\b.*\\b" + Pattern.quote(bsn) + "$").matcher(bundles).find(),
                        bsn + " must be Active:\n" + bundles);
            }
            // the feature lists exactly the fragments the build made (no library-less aarch64 fragment)
            for (String fragment : List.of("io.conduit.epoll.linux.x86_64", "io.conduit.epoll.linux.aarch64")) {
                if (!ItestFiles.epollFragments().contains(fragment)) {
                    assertFalse(bundles.contains(fragment), fragment + " was not built, so not listed:\n" + bundles);
                    continue;
                }
                assertTrue(Pattern.compile("(?m)\\bResolved\\b.*\\b" + Pattern.quote(fragment) + "$").matcher(bundles)
                        .find(), fragment + " must be a Resolved fragment:\n" + bundles);
            }
            // epoll's library loaded from this machine's fragment inside Karaf, and auto prefers it.
            assertTrue(EPOLL_SELECTED.matcher(transports).find(), "epoll must be available and selected:\n"
                    + transports + logTail(karaf));

            String stop = run(karaf, env, 30, karaf.resolve("bin/stop").toString());
            assertTrue(server.waitFor(30, TimeUnit.SECONDS), "Karaf did not stop within 30 s of bin/stop: " + stop);
            System.out.println("KarafFeatureTest: SSH up after " + bootMillis + " ms, whole test "
                    + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos) + " ms");
        } finally {
            server.descendants().forEach(ProcessHandle::destroyForcibly);
            server.destroyForcibly();
            server.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** This JVM when it is a 17, else the first JDK 17 under /usr/lib/jvm (by its {@code release} file); or null. */
    static Path findJdk17() throws IOException {
        if (Runtime.version().feature() == 17) {
            return Path.of(System.getProperty("java.home"));
        }
        Path jvms = Path.of("/usr/lib/jvm");
        if (!Files.isDirectory(jvms)) {
            return null;
        }
        try (Stream<Path> dirs = Files.list(jvms)) {
            for (Path dir : (Iterable<Path>) dirs.sorted()::iterator) {
                Path release = dir.resolve("release");
                if (Files.isRegularFile(release) && Files.isExecutable(dir.resolve("bin/java"))
                        && Files.readString(release).contains("JAVA_VERSION=\"17.")) {
                    return dir;
                }
            }
        }
        return null;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /**
     * Replaces {@code key}'s (uncommented) definition in a Karaf {@code .cfg} file, continuation lines included,
     * by {@code key = value} at the end of the file.
     */
    static void setCfg(Path file, String key, String value) throws IOException {
        Pattern definition = Pattern.compile("^\\s*" + Pattern.quote(key) + "\\s*=.*");
        List<String> out = new ArrayList<>();
        boolean continuation = false;
        for (String line : Files.readAllLines(file)) {
            if (continuation) {
                continuation = line.endsWith("\\");
                continue;
            }
            if (definition.matcher(line).matches()) {
                continuation = line.endsWith("\\");
                continue;
            }
            out.add(line);
        }
        out.add(key + " = " + value);
        Files.write(file, out);
    }

    private static void stage(Path repo, String artifactId, String version, String suffix, String property)
            throws IOException {
        Path source = Path.of(ItestFiles.required(property));
        assertTrue(Files.isRegularFile(source), source + " is missing: build the reactor (mvn install -DskipTests)");
        String name = artifactId + "-" + version + (suffix.equals("jar") ? ".jar" : "-" + suffix);
        Path target = repo.resolve("io/conduit").resolve(artifactId).resolve(version).resolve(name);
        Files.createDirectories(target.getParent());
        Files.copy(source, target, StandardCopyOption.REPLACE_EXISTING);
    }

    private static void waitForPort(Process server, int port, int seconds, Path karaf) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (true) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
                return;
            } catch (IOException notYet) {
                assertTrue(server.isAlive(), "Karaf exited with " + (server.isAlive() ? "?" : server.exitValue())
                        + " before opening SSH port " + port + logTail(karaf));
                assertTrue(System.nanoTime() < deadline, "Karaf's SSH port " + port + " not open after " + seconds
                        + " s" + logTail(karaf));
                Thread.sleep(250);
            }
        }
    }

    /** {@code bin/client -b} with {@code commands} on standard input; @return its output (stderr merged). */
    private static String client(Path karaf, Path work, Map<String, String> env, int sshPort, String commands)
            throws Exception {
        Path in = Files.writeString(work.resolve("client-input.txt"), commands);
        List<String> command = List.of(karaf.resolve("bin/client").toString(), "-h", "127.0.0.1", "-a",
                Integer.toString(sshPort), "-u", "karaf", "-p", "karaf", "-r", "20", "-d", "1", "-b");
        ProcessBuilder pb = new ProcessBuilder(command).directory(karaf.toFile()).redirectErrorStream(true)
                .redirectInput(in.toFile()).redirectOutput(work.resolve("client-output.txt").toFile());
        pb.environment().putAll(env);
        Process client = pb.start();
        try {
            assertTrue(client.waitFor(60, TimeUnit.SECONDS), "bin/client did not finish within 60 s: " + commands);
        } finally {
            client.destroyForcibly();
        }
        return Files.readString(work.resolve("client-output.txt"), StandardCharsets.UTF_8);
    }

    private static String run(Path dir, Map<String, String> env, int seconds, String... command) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
        pb.environment().putAll(env);
        Process p = pb.start();
        byte[] output;
        try {
            output = p.getInputStream().readAllBytes();
            assertTrue(p.waitFor(seconds, TimeUnit.SECONDS), String.join(" ", command) + " did not finish within "
                    + seconds + " s");
        } finally {
            p.destroyForcibly();
        }
        String text = new String(output, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), String.join(" ", command) + " failed:\n" + text);
        return text;
    }

    private static String logTail(Path karaf) {
        Path log = karaf.resolve("data/log/karaf.log");
        try {
            List<String> lines = Files.readAllLines(log);
            return "\n--- last lines of " + log + ":\n"
                    + String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "\n(no " + log + ": " + e + ")";
        }
    }
}
