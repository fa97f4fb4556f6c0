package io.conduit.epoll;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

import io.conduit.testsuite.RequiredTools;
import io.conduit.transport.Diagnostics;
import io.conduit.transport.spi.NativeLibraryLoader;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What an operator reads when the epoll library is there but cannot load: a child JVM prints the diagnostics report
 * ({@link Diagnostics}) and its selection line must fall back to {@code nio} with the real reason first.
 *
 * <ul>
 *   <li>{@code conduit.native.workdir} on a {@code noexec} tmpfs: once the reason was the advice to install the
 *       fragment (which was on the class path) and the loader's "failed to map segment" was only the third attempt
 *       line; it must say the directory cannot execute code and name the property.</li>
 *   <li>The same on a read-only tmpfs: the directory cannot be written.</li>
 *   <li>Only the aarch64 fragment on an x86_64 class path: it must say which library was found and which fragment
 *       is needed.</li>
 * </ul>
 *
 * <p>The mounts are made in a private mount namespace ({@code unshare -m}) so the host sees none of them; where that
 * cannot be done (not root, no {@code unshare}) those two tests are skipped with one printed line, or fail under
 * {@code CONDUIT_REQUIRE_TOOLS=true} ({@link RequiredTools#missing}).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EpollLibraryProblemsTest {

    @TempDir
    Path dir;

    @Test
    void aNoexecWorkdirIsNamedAsUnableToExecuteCode() throws Exception {
        String selected = selectionOnTmpfs("noexec");
        assertTrue(selected.contains("cannot execute code"), selected);
        assertTrue(selected.contains("conduit.native.workdir"), selected);
        assertTrue(selected.contains("failed to map segment"), "the loader's own words are kept: " + selected);
        assertFalse(selected.contains("install the native fragment"), selected);
    }

    @Test
    void aReadOnlyWorkdirIsNamedAsNotWritable() throws Exception {
        String selected = selectionOnTmpfs("ro");
        assertTrue(selected.contains("but cannot extract it to the directory"), selected);
        assertTrue(selected.contains("Read-only file system"), selected);
        assertTrue(selected.contains("Set conduit.native.workdir to a writable directory"), selected);
        assertFalse(selected.contains("install the native fragment"), selected);
    }

    @Test
    void onlyTheFragmentOfAnotherArchitectureIsNamedWithTheOneToInstall() throws Exception {
        String arch = NativeLibraryLoader.arch();
        String other = "aarch64".equals(arch) ? "x86_64" : "aarch64";
        String otherFile = System.mapLibraryName("conduit_epoll_" + other);
        Path fragment = dir.resolve("conduit-native-epoll-linux-" + other + ".jar");
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().putValue("Bundle-SymbolicName", "io.conduit.epoll.linux." + other);
        manifest.getMainAttributes().putValue("Fragment-Host", "io.conduit.epoll");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(fragment), manifest)) {
            out.putNextEntry(new JarEntry(NativeLibraryLoader.RESOURCE_FOLDER + otherFile));
            out.write(new byte[] {0x7f, 'E', 'L', 'F'});
            out.closeEntry();
        }
        List<String> classPath = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (!entry.contains("epoll-linux-" + arch)) { // this architecture's fragment (jar or classes) is left out
                classPath.add(entry);
            }
        }
        classPath.add(fragment.toString());
        String selected = selectionLine(run(javaCommand(String.join(File.pathSeparator, classPath))));
        assertTrue(selected.contains("found " + otherFile + " (fragment io.conduit.epoll.linux." + other
                + ") but this JVM is " + arch), selected);
        assertTrue(selected.contains("install io.conduit.epoll.linux." + arch), selected);
    }

    /** @return the selection line of the report of a child JVM whose work directory is a tmpfs mounted with {@code options} */
    private String selectionOnTmpfs(String options) throws Exception {
        String reason = mountNamespaceUnavailableReason();
        if (reason != null) {
            // one printed line per JVM; a failure under CONDUIT_REQUIRE_TOOLS=true, so CI never skips these
            Assumptions.assumeTrue(false, RequiredTools.missing("a private mount namespace (" + reason + ")",
                    "run the tests as root, with util-linux ('apt-get install -y util-linux')"));
        }
        Path workdir = Files.createDirectory(dir.resolve("workdir"));
        List<String> command = new ArrayList<>(List.of("unshare", "-m", "sh", "-c",
                "mount -t tmpfs -o " + options + " conduit-test \"$1\" && shift && exec \"$@\"", "sh",
                workdir.toString()));
        command.addAll(javaCommand(System.getProperty("java.class.path"),
                "-D" + NativeLibraryLoader.WORKDIR_PROPERTY + "=" + workdir));
        String selected = selectionLine(run(command));
        assertTrue(selected.contains(workdir + " (conduit.native.workdir)"), selected);
        return selected;
    }

    /** @return {@code java <jvmOptions> … -cp <classPath> io.conduit.transport.Diagnostics} for this JVM */
    private static List<String> javaCommand(String classPath, String... jvmOptions) {
        List<String> command = new ArrayList<>();
        command.add(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
        command.addAll(List.of(jvmOptions));
        if (Runtime.version().feature() >= 21) {
            command.add("--enable-native-access=ALL-UNNAMED");
        }
        command.addAll(List.of("-cp", classPath, Diagnostics.class.getName()));
        return command;
    }

    private static String run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        boolean done = p.waitFor(90, TimeUnit.SECONDS);
        if (!done) {
            p.destroyForcibly();
        }
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(done, "the child JVM did not finish within 90 s: " + output);
        assertEquals(0, p.exitValue(), "child JVM exit; output:\n" + output);
        return output;
    }

    /** @return the report's {@code selected:} line, which must be a fallback to nio */
    private static String selectionLine(String report) {
        for (String line : report.split("\n")) {
            if (line.trim().startsWith("selected:")) {
                assertTrue(line.contains("selected: nio - native transport 'epoll' is unavailable, fell back to"
                        + " 'nio': cannot load native library 'conduit_epoll_"), report);
                return line;
            }
        }
        throw new AssertionError("no selection line in the report:\n" + report);
    }

    /** @return why a private mount namespace with its own tmpfs cannot be made here, or {@code null} when it can */
    private static String mountNamespaceUnavailableReason() throws InterruptedException {
        try {
            Process p = new ProcessBuilder("unshare", "-m", "sh", "-c", "mount -t tmpfs conduit-test /mnt")
                    .redirectErrorStream(true).start();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return "unshare -m did not finish";
            }
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            return p.exitValue() == 0 ? null : "unshare -m with a tmpfs mount failed (exit " + p.exitValue() + "): "
                    + out;
        } catch (IOException e) {
            return "unshare is not installed: " + e.getMessage();
        }
    }
}
