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

/**
 * A fresh Apache Karaf 4.4 for the Karaf tests (plain JUnit 5, Karaf in a child process on a JDK 17, since Karaf
 * 4.4's shell fails on JDK 25).
 *
 * <p>{@link #unpack} unpacks the distribution the build fetched from Maven Central ({@code target/karaf-dist}) into
 * a work folder; enables the {@code karaf} user and its admin group; moves SSH and RMI to free ports on 127.0.0.1;
 * stages the freshly packaged Conduit jars and the features file in a Maven-layout folder that Karaf's pax-url-mvn
 * searches first (so an out-of-date jar in ~/.m2 is never tested; third-party bundles come from ~/.m2, filled by the
 * build; Central is the only remote repository, none when offline). {@link #start} runs {@code bin/karaf server}
 * until its SSH port opens, {@link #client} runs shell commands through {@code bin/client -b}, {@link #stop} runs
 * {@code bin/stop}, and {@link #close} kills the Karaf process tree in any case.
 */
final class KarafHost implements AutoCloseable {

    final Path home;
    private final Path work;
    private final int sshPort;
    private final Map<String, String> env;
    private Process server;

    private KarafHost(Path work, Path home, int sshPort, Path jdk17) {
        this.work = work;
        this.home = home;
        this.sshPort = sshPort;
        this.env = Map.of("JAVA_HOME", jdk17.toString());
    }

    /**
     * @return a JDK 17 for Karaf (this JVM when it is one, else the first under /usr/lib/jvm); when there is none, the
     *         calling test is skipped with one printed line, or fails under {@code CONDUIT_REQUIRE_TOOLS=true}
     */
    static Path jdk17OrSkip(String test) throws IOException {
        Path jdk17 = findJdk17();
        if (jdk17 == null) {
            String reason = "no JDK 17 (this JVM is " + Runtime.version() + ", and none under /usr/lib/jvm): Karaf"
                    + " 4.4's shell does not run on newer JDKs; install one with 'apt-get install -y"
                    + " openjdk-17-jdk-headless'";
            assertFalse("true".equals(System.getenv("CONDUIT_REQUIRE_TOOLS")),
                    "[tools] FAILED: " + test + " needs " + reason + " (CONDUIT_REQUIRE_TOOLS=true forbids skipping)");
            System.out.println("[tools] SKIPPED: " + test + ": " + reason);
            Assumptions.assumeTrue(false, reason);
        }
        return jdk17;
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

    /**
     * Unpacks a fresh Karaf into {@code work} (deleted first) and prepares it as the class javadoc says.
     *
     * @param offline whether Karaf may not download anything (then every bundle must be in the local repository)
     */
    static KarafHost unpack(Path work, Path jdk17, boolean offline) throws Exception {
        String version = ItestFiles.required("conduit.itest.version");
        ItestFiles.deleteTree(work);
        Files.createDirectories(work);

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
        stage(staging, "conduit-health", version, "jar", "conduit.itest.healthJar");
        stage(staging, "conduit-epoll", version, "jar", "conduit.itest.epollJar");
        for (String fragment : ItestFiles.epollFragments()) {
            stage(staging, "conduit-native-epoll-linux-" + fragment.substring("io.conduit.epoll.linux.".length()),
                    version, "jar", ItestFiles.epollFragmentJarProperty(fragment));
        }
        stage(staging, "conduit-kqueue", version, "jar", "conduit.itest.kqueueJar");
        stage(staging, "conduit-itest", version, "features.xml", "conduit.itest.featuresXml");
        Path mvnCfg = etc.resolve("org.ops4j.pax.url.mvn.cfg");
        setCfg(mvnCfg, "org.ops4j.pax.url.mvn.defaultRepositories", staging.toUri() + "@id=conduit.build@snapshots,"
                + " ${karaf.home.uri}${karaf.default.repository}@id=system.repository@snapshots,"
                + " ${karaf.data.uri}kar@id=kar.repository@multi@snapshots");
        // Central only (Karaf's scr feature needs org.apache.karaf.scr.management, which only Karaf can fetch);
        // nothing remote when offline.
        setCfg(mvnCfg, "org.ops4j.pax.url.mvn.repositories", offline ? "" : "https://repo1.maven.org/maven2@id=central");
        setCfg(mvnCfg, "org.ops4j.pax.url.mvn.offline", Boolean.toString(offline));
        setCfg(mvnCfg, "org.ops4j.pax.url.mvn.localRepository", ItestFiles.required("conduit.itest.localRepository"));
        return new KarafHost(work, karaf, sshPort, jdk17);
    }

    /** Runs {@code bin/karaf server} and waits up to {@code seconds} for its SSH port. */
    void start(int seconds) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(home.resolve("bin/karaf").toString(), "server").directory(home.toFile())
                .redirectErrorStream(true).redirectOutput(work.resolve("karaf-console.log").toFile());
        pb.environment().putAll(env);
        pb.environment().remove("JAVA_OPTS");
        pb.environment().remove("EXTRA_JAVA_OPTS");
        server = pb.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (true) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), sshPort), 1000);
                return;
            } catch (IOException notYet) {
                assertTrue(server.isAlive(), "Karaf exited with " + (server.isAlive() ? "?" : server.exitValue())
                        + " before opening SSH port " + sshPort + logTail());
                assertTrue(System.nanoTime() < deadline, "Karaf's SSH port " + sshPort + " not open after " + seconds
                        + " s" + logTail());
                Thread.sleep(250);
            }
        }
    }

    /** @return the Karaf JVM's process (the child of {@code bin/karaf}), or the script's when it has none */
    ProcessHandle process() {
        return server.descendants().filter(p -> p.info().command().map(c -> c.endsWith("/java")).orElse(false))
                .findFirst().orElse(server.toHandle());
    }

    /**
     * {@code bin/client -b} with {@code commands} on standard input. Karaf's batch mode does not print a command's
     * returned value (the console does), so a command whose text matters ends with {@code | cat}.
     *
     * @return its output (stderr merged)
     */
    String client(String commands) throws Exception {
        return client(commands, 60);
    }

    /** {@link #client(String)} that may take up to {@code seconds}. */
    String client(String commands, int seconds) throws Exception {
        Path in = Files.writeString(work.resolve("client-input.txt"), commands);
        List<String> command = List.of(home.resolve("bin/client").toString(), "-h", "127.0.0.1", "-a",
                Integer.toString(sshPort), "-u", "karaf", "-p", "karaf", "-r", "20", "-d", "1", "-b");
        ProcessBuilder pb = new ProcessBuilder(command).directory(home.toFile()).redirectErrorStream(true)
                .redirectInput(in.toFile()).redirectOutput(work.resolve("client-output.txt").toFile());
        pb.environment().putAll(env);
        Process client = pb.start();
        try {
            assertTrue(client.waitFor(seconds, TimeUnit.SECONDS), "bin/client did not finish within " + seconds + " s: "
                    + commands);
        } finally {
            client.destroyForcibly();
        }
        return Files.readString(work.resolve("client-output.txt"), StandardCharsets.UTF_8);
    }

    /** Runs {@code bin/stop} and waits up to 30 s for Karaf to exit. */
    void stop() throws Exception {
        String stop = run(home, env, 30, home.resolve("bin/stop").toString());
        assertTrue(server.waitFor(30, TimeUnit.SECONDS), "Karaf did not stop within 30 s of bin/stop: " + stop);
    }

    /** Kills the Karaf process tree (nothing happens when it has exited). */
    @Override
    public void close() throws InterruptedException {
        if (server != null) {
            server.descendants().forEach(ProcessHandle::destroyForcibly);
            server.destroyForcibly();
            server.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** @return the last 40 lines of {@code data/log/karaf.log}, for a failure message */
    String logTail() {
        Path log = home.resolve("data/log/karaf.log");
        try {
            List<String> lines = Files.readAllLines(log);
            return "\n--- last lines of " + log + ":\n"
                    + String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "\n(no " + log + ": " + e + ")";
        }
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
}
