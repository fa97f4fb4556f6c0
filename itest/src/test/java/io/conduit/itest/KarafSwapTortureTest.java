package io.conduit.itest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.io.Reader;
import java.io.Writer;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Swap torture in Apache Karaf, driven as an operator drives it: a plain {@link io.conduit.transport.ManagedServer}
 * echo (the bundle {@link KarafTortureEcho}, built by this test) follows the selection while the shell runs
 * {@code bundle:update -r <epoll bundle>} {@link #CYCLES} times back to back in one command line
 * ({@code bundle:update -r 54 ; bundle:update -r 54 ; …}) of one {@code bin/client} session, under
 * short-connection churn (connect, 1 KiB echo, close) and {@link #LONG_CLIENTS} long-lived connections of plain
 * {@code java.net} clients ({@link EchoChurn}). Karaf itself is prepared by {@link KarafHost} and runs on a JDK 17.
 *
 * <p>Felix rejects an update, or the start that ends it, while the refresh of the update before still holds its global
 * lock ("Cannot acquire global lock to update the bundle", "Unable to acquire global lock for resolve"), and the
 * shell then drops the rest of that line, as it would for an operator. The test counts such rejections, starts the
 * bundle again and sends the remaining commands until {@link #CYCLES} updates were made.
 *
 * <p>Before the swap engine treated a transport withdrawn during a swap as a normal event, 10 such commands in Karaf
 * 4.4.10 refused 1,129 of 14,981 connections, logged 109 {@code NoClassDefFoundError}s and left 7 more socket
 * descriptors open: {@code update} started a revision, the swap bound on it, the refresh right after withdrew it.
 *
 * <p>The whole run happens in a child JVM in a network namespace of its own ({@code unshare -n}, loopback up,
 * {@code net.ipv4.tcp_migrate_req=1}), so no connection still in a closing listener's accept backlog is reset; Karaf
 * in there is offline, so it takes every bundle from the local repository (KarafFeatureTest, run before this test,
 * fetches the two Karaf needs itself). Where no namespace can be made, the run happens in this JVM and such resets are
 * counted apart as cuts, as docs/runtime-swap.md says.
 *
 * <p>Asserts: no connection refused, no byte corrupted, no exchange left hanging; no connection accepted on a loop the
 * server cannot name the transport of; with {@code tcp_migrate_req=1}, no exchange cut before the first update;
 * long-lived connections lost only when their transport went away; socket and event-poll descriptors of the Karaf
 * JVM back to their start value; Conduit's threads back to their start value;
 * at most one epoll class loader reachable after GC; at most {@link #LOG_LINES_PER_CYCLE} Conduit log lines per
 * cycle, none with a stack trace, and no stack frame of Conduit's code in {@code karaf.log} (an event loop of a
 * withdrawn revision stops with one line naming the class that is gone). The figures are printed
 * as one {@code KARAF-SWAP-TORTURE} line.
 */
class KarafSwapTortureTest {

    /** {@code bundle:update -r} commands, back to back in one shell session. */
    static final int CYCLES = 20;
    private static final int SHORT_CLIENTS = 4;
    private static final int LONG_CLIENTS = 2;
    /** Most Conduit log lines a cycle may produce on average. */
    private static final int LOG_LINES_PER_CYCLE = 12;
    /** Socket descriptors that may stay open in the Karaf JVM: none, as in {@link SwapTortureTest}. */
    private static final int FD_LEAK_ALLOWANCE = 0;
    private static final int CHILD_SECONDS = 420;
    private static final Pattern EPOLL_SELECTED = Pattern.compile("(?m)^\\* epoll\\s+native\\s+\\d+\\s+yes");
    private static final Pattern EPOLL_BUNDLE_ID = Pattern.compile("(?m)^\\s*(\\d+)\\s*\\S\\s*Active\\b.*\\bio\\.conduit\\.epoll\\s*$");

    @Test
    @Timeout(value = CHILD_SECONDS + 60, unit = TimeUnit.SECONDS)
    void echoHoldsWhileTheShellRunsBundleUpdateWithRefreshBackToBack() throws Exception {
        Path jdk17 = KarafHost.jdk17OrSkip("KarafSwapTortureTest");
        Path work = Path.of(ItestFiles.required("conduit.itest.target"), "karaf-swap-test");
        Properties f;
        if (canUnshareNetwork()) {
            f = inChildInOwnNetworkNamespace(work);
        } else {
            System.out.println("KarafSwapTortureTest: no network namespace can be made here (unshare -n fails): running"
                    + " in this one; resets of connections in a closing listener's backlog count as cuts");
            boolean offline = "offline:true".equals(System.getProperty("conduit.itest.offline"));
            f = torture(jdk17, work, offline);
        }
        String figures = f.getProperty("line");
        System.out.println(figures);

        assertEquals("0", f.getProperty("refused"), figures);
        assertEquals("0", f.getProperty("corrupted"), figures);
        assertEquals("0", f.getProperty("timedOut"), figures);
        assertEquals("0", f.getProperty("unknownLoop"), figures);
        assertEquals("true", f.getProperty("freshExchange"), "a fresh exchange after the torture: " + figures);
        assertEquals("0", f.getProperty("longLostBeforeUpdates"), figures);
        if ("1".equals(f.getProperty("tcpMigrateReq"))) {
            assertEquals("0", f.getProperty("cutBeforeUpdates"), figures);
        }
        assertTrue(num(f, "longLost") <= (long) LONG_CLIENTS * CYCLES,
                "long-lived connections are lost only when their transport goes away: " + figures);
        assertTrue(num(f, "completed") > 100 && num(f, "longExchanges") > 10, figures);
        assertTrue(num(f, "fdsAfter") <= num(f, "fdsBefore") + FD_LEAK_ALLOWANCE,
                "socket descriptors back to their start value, but for at most " + FD_LEAK_ALLOWANCE + ": " + figures);
        assertTrue(num(f, "conduitThreadsAfter") <= num(f, "conduitThreadsBefore"),
                "Conduit's threads back to their start value: " + figures);
        assertTrue(num(f, "epollLoadersLeft") <= 1, "at most one epoll class loader reachable after GC: " + figures);
        assertEquals("0", f.getProperty("logWithStackTrace"), "no stack trace logged: " + figures);
        assertTrue(num(f, "logLines") <= (long) LOG_LINES_PER_CYCLE * CYCLES,
                "at most " + LOG_LINES_PER_CYCLE + " log lines per cycle: " + figures);
        assertEquals("0", f.getProperty("conduitStackFramesInKarafLog"), "no stack trace through Conduit's code in"
                + " karaf.log: " + figures);
    }

    private static long num(Properties f, String key) {
        return Long.parseLong(f.getProperty(key));
    }

    /** @return whether {@code unshare -n} works here (root, or user namespaces allowed, and util-linux present) */
    private static boolean canUnshareNetwork() {
        try {
            Process p = new ProcessBuilder("unshare", "-n", "true").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    /**
     * Runs {@link #main} in a child JVM in a new network namespace with loopback up and
     * {@code net.ipv4.tcp_migrate_req=1}; @return the figures it wrote
     */
    private static Properties inChildInOwnNetworkNamespace(Path work) throws Exception {
        Files.createDirectories(work.getParent());
        Path figuresFile = work.resolveSibling("karaf-swap-test-figures.properties");
        Files.deleteIfExists(figuresFile);
        List<String> java = new ArrayList<>();
        java.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (String key : System.getProperties().stringPropertyNames()) {
            if (key.startsWith("conduit.itest.")) {
                java.add("-D" + key + "=" + System.getProperty(key));
            }
        }
        java.addAll(List.of("-cp", System.getProperty("java.class.path"), KarafSwapTortureTest.class.getName(),
                work.toString(), figuresFile.toString()));
        List<String> command = new ArrayList<>(List.of("unshare", "-n", "sh", "-c",
                "ip link set lo up && sysctl -q -w net.ipv4.tcp_migrate_req=1 && exec \"$@\"", "sh"));
        command.addAll(java);
        Path output = work.resolveSibling("karaf-swap-test-child.log");
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
        try {
            assertTrue(p.waitFor(CHILD_SECONDS, TimeUnit.SECONDS), "the child JVM did not finish within "
                    + CHILD_SECONDS + " s; its output:\n" + tail(output));
        } finally {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        assertEquals(0, p.exitValue(), "the child JVM failed; its output:\n" + tail(output));
        Properties f = new Properties();
        try (Reader r = Files.newBufferedReader(figuresFile)) {
            f.load(r);
        }
        return f;
    }

    private static String tail(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 80), lines.size()));
    }

    /** Child JVM entry point: {@code <work folder> <figures file>}; Karaf offline. */
    public static void main(String[] args) throws Exception {
        Path jdk17 = KarafHost.findJdk17();
        if (jdk17 == null) {
            throw new IllegalStateException("no JDK 17 for Karaf");
        }
        Properties f = torture(jdk17, Path.of(args[0]), true);
        try (Writer w = Files.newBufferedWriter(Path.of(args[1]))) {
            f.store(w, "KarafSwapTortureTest figures");
        }
        System.out.println(f.getProperty("line"));
        System.exit(0); // EchoChurn's daemon threads are done; nothing else should keep this JVM
    }

    /** Runs the torture in this JVM's network namespace; @return its figures, with {@code line} the printed summary */
    static Properties torture(Path jdk17, Path work, boolean offline) throws Exception {
        long startNanos = System.nanoTime();
        String version = ItestFiles.required("conduit.itest.version");
        Path localRepo = Path.of(ItestFiles.required("conduit.itest.localRepository"));
        if (offline) {
            Path scrManagement = localRepo.resolve("org/apache/karaf/scr/org.apache.karaf.scr.management");
            assertTrue(Files.isDirectory(scrManagement), scrManagement + " is missing, and Karaf is offline here: run"
                    + " KarafFeatureTest once online first (Karaf fetches that bundle itself)");
        }
        boolean migrate = "1".equals(readOrEmpty(Path.of("/proc/sys/net/ipv4/tcp_migrate_req")));
        Properties f = new Properties();
        EchoChurn churn = new EchoChurn();
        try (KarafHost karaf = KarafHost.unpack(work, jdk17, offline)) {
            Path echoJar = echoBundle(work.resolve("torture-echo.jar"));
            karaf.start(120);
            long bootSeconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startNanos);
            String install = karaf.client("feature:repo-add mvn:io.conduit/conduit-itest/" + version
                    + "/xml/features\nfeature:install conduit\nbundle:install -s " + echoJar.toUri() + "\n", 180);
            assertTrue(!install.contains("Error") && !install.contains("Exception"),
                    "feature:install conduit / bundle:install of the echo failed:\n" + install + karaf.logTail());
            String transports = "";
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (System.nanoTime() < deadline && !EPOLL_SELECTED.matcher(transports).find()) {
                transports = karaf.client("conduit:transports | cat\n");
            }
            assertTrue(EPOLL_SELECTED.matcher(transports).find(), "epoll must be selected:\n" + transports
                    + karaf.logTail());
            String started = karaf.client("torture:start | cat\n");
            Matcher port = Pattern.compile("port=(\\d+) transport=epoll").matcher(started);
            assertTrue(port.find(), "torture:start must answer port=<n> transport=epoll:\n" + started
                    + karaf.logTail());
            String bundles = karaf.client("bundle:list -s\n");
            Matcher id = EPOLL_BUNDLE_ID.matcher(bundles);
            assertTrue(id.find(), "io.conduit.epoll must be Active:\n" + bundles);

            Path karafLog = karaf.home.resolve("data/log/karaf.log");
            long karafLogLinesBefore = Files.readAllLines(karafLog).size();
            churn.start(new InetSocketAddress("127.0.0.1", Integer.parseInt(port.group(1))), SHORT_CLIENTS,
                    LONG_CLIENTS);
            Thread.sleep(1000); // phase 1: no update yet, nothing may be cut
            churn.phase(2);
            long updatesStart = System.nanoTime();
            int rejected = 0;
            int updated = 0;
            for (int round = 0; updated < CYCLES && round < 3 * CYCLES; round++) {
                // One line: in batch mode (-b) a further input line interrupts the running command. The shell stops at
                // the first command that fails: Felix rejects an update of a bundle that the refresh of the update
                // before still has to stop ("Cannot acquire global lock to update the bundle", a deadlock it avoids),
                // as it would for an operator; the next round goes on from there.
                String updates = karaf.client((rejected > 0 ? "bundle:start " + id.group(1) + " ; " : "")
                        + String.join(" ; ", Collections.nCopies(CYCLES - updated, "bundle:update -r " + id.group(1)))
                        + "\n", 300);
                if (updates.contains("global lock")) {
                    rejected++;
                } else {
                    assertTrue(!updates.contains("Error"), "bundle:update -r failed:\n" + updates + karaf.logTail());
                }
                Matcher n = Pattern.compile("epollUpdates=(\\d+)").matcher(karaf.client("torture:status | cat\n"));
                assertTrue(n.find(), "torture:status must count the epoll updates");
                updated = Integer.parseInt(n.group(1));
            }
            long updatesMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - updatesStart);
            // a rejected start (after the update) leaves the bundle stopped, as it would an operator's: start it
            for (int i = 0; i < 10 && karaf.client("bundle:start " + id.group(1) + "\n").contains("global lock"); i++) {
                Thread.sleep(500);
            }
            assertTrue(updated >= CYCLES, "only " + updated + " of " + CYCLES + " updates were made, " + rejected
                    + " command lines were rejected by Felix" + karaf.logTail());
            f.setProperty("updated", Integer.toString(updated));
            f.setProperty("rejectedByFelix", Integer.toString(rejected));
            String status = "";
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (System.nanoTime() < deadline && !status.contains("transport=epoll selected=epoll sameInstance=true")) {
                status = karaf.client("torture:status | cat\n");
            }
            assertTrue(status.contains("transport=epoll selected=epoll sameInstance=true"),
                    "the server must settle on the selected epoll:\n" + status + karaf.logTail());
            Thread.sleep(500);
            churn.stopAndJoin();
            f.setProperty("freshExchange", Boolean.toString(churn.freshExchange()));

            String finish = karaf.client("torture:finish | cat\n", 120);
            for (String line : finish.split("\\R")) {
                int eq = line.indexOf('=');
                if (eq > 0) {
                    f.setProperty(line.substring(0, eq).trim(), line.substring(eq + 1).trim());
                }
            }
            assertTrue(f.containsKey("fdsAfter"), "torture:finish must answer the figures:\n" + finish
                    + karaf.logTail());
            List<String> logLines = Files.readAllLines(karafLog);
            List<String> newLines = logLines.subList((int) Math.min(karafLogLinesBefore, logLines.size()),
                    logLines.size());
            f.setProperty("karafLogLines", Integer.toString(newLines.size()));
            // a stack trace through Conduit's code, whoever logged it (the swap engine logs one line per event)
            f.setProperty("conduitStackFramesInKarafLog", Long.toString(newLines.stream()
                    .filter(l -> l.startsWith("\tat io.conduit.")).count()));
            // event loops of a withdrawn revision that stop with one WARNING line naming the class that is gone
            f.setProperty("classesGoneLines", Long.toString(newLines.stream()
                    .filter(l -> l.contains("stopped: its transport's classes are gone")).count()));
            karaf.stop();

            EchoChurn.Figures c = churn.figures;
            f.setProperty("tcpMigrateReq", migrate ? "1" : "0");
            f.setProperty("attempted", c.attempted.toString());
            f.setProperty("completed", c.completed.toString());
            f.setProperty("refused", c.refused.toString());
            f.setProperty("corrupted", c.corrupted.toString());
            f.setProperty("timedOut", c.timedOut.toString());
            f.setProperty("cutBeforeUpdates", c.cut[1].toString());
            f.setProperty("cut", c.cut[2].toString());
            f.setProperty("longExchanges", c.longExchanges.toString());
            f.setProperty("longLostBeforeUpdates", c.longLost[1].toString());
            f.setProperty("longLost", c.longLost[2].toString());
            f.setProperty("line", "KARAF-SWAP-TORTURE [Karaf on JDK 17, tcp_migrate_req=" + (migrate ? 1 : 0) + "]"
                    + " cycles=" + CYCLES + " (bundle:update -r: " + updated + " updates in " + updatesMillis + " ms, "
                    + rejected + " rejected by Felix as the refresh before was running) attempted=" + c.attempted
                    + " completed=" + c.completed + " refused=" + c.refused + " corrupted=" + c.corrupted
                    + " timedOut=" + c.timedOut + " cut(before/during updates)=" + c.cut[1] + "/" + c.cut[2]
                    + " longLivedExchanges=" + c.longExchanges + " longLivedLost(before/during)=" + c.longLost[1]
                    + "/" + c.longLost[2] + " unknownLoop=" + f.getProperty("unknownLoop") + " fds(socket+anon) "
                    + f.getProperty("fdsBefore") + "->" + f.getProperty("fdsAfter") + " conduitThreads "
                    + f.getProperty("conduitThreadsBefore") + "->" + f.getProperty("conduitThreadsAfter")
                    + " threads(all, SSH sessions included) " + f.getProperty("threadsBefore") + "->"
                    + f.getProperty("threadsAfter") + " epollLoadersLeft=" + f.getProperty("epollLoadersLeft") + "/"
                    + f.getProperty("epollLoadersSeen") + " logLines=" + f.getProperty("logLines") + " (withStackTrace="
                    + f.getProperty("logWithStackTrace") + ") karafLogLines=" + newLines.size()
                    + " conduitStackFramesInKarafLog=" + f.getProperty("conduitStackFramesInKarafLog")
                    + " classesGoneLines=" + f.getProperty("classesGoneLines") + " bootSeconds="
                    + bootSeconds + " totalSeconds=" + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startNanos)
                    + " problems=" + c.problems() + " stackTraces=" + f.getProperty("stackTraces")
                    + (f.containsKey("fdListAfter") ? " fds before " + f.getProperty("fdListBefore") + " after "
                    + f.getProperty("fdListAfter") : ""));
        } finally {
            churn.stopNow();
        }
        return f;
    }

    private static String readOrEmpty(Path p) {
        try {
            return Files.readString(p).trim();
        } catch (IOException e) {
            return "";
        }
    }

    /**
     * Packs {@link KarafTortureEcho} and the plain helpers it uses, from this test's class folder, into a bundle
     * {@code io.conduit.itest.karaf.echo} at {@code jar}.
     */
    private static Path echoBundle(Path jar) throws Exception {
        Path classes = Path.of(Descriptors.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path pkg = classes.resolve("io/conduit/itest");
        List<String> simpleNames = List.of("KarafTortureEcho", "EpollLoaders", "ConduitLogCounter", "Descriptors");
        Manifest mf = new Manifest();
        Attributes a = mf.getMainAttributes();
        a.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        a.putValue("Bundle-ManifestVersion", "2");
        a.putValue("Bundle-SymbolicName", "io.conduit.itest.karaf.echo");
        a.putValue("Bundle-Version", "1.0.0");
        a.putValue("Bundle-Activator", KarafTortureEcho.class.getName());
        a.putValue("Import-Package", "io.conduit.channel,io.conduit.concurrent,io.conduit.transport,"
                + "org.osgi.framework,org.osgi.framework.wiring");
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream jos = new JarOutputStream(out, mf);
                Stream<Path> files = Files.list(pkg)) {
            for (Path p : (Iterable<Path>) files.sorted()::iterator) {
                String name = p.getFileName().toString();
                String simple = name.replaceAll("(\\$.*)?\\.class$", "");
                if (name.endsWith(".class") && simpleNames.contains(simple)) {
                    jos.putNextEntry(new JarEntry("io/conduit/itest/" + name));
                    jos.write(Files.readAllBytes(p));
                    jos.closeEntry();
                }
            }
        }
        return jar;
    }
}
