package io.conduit.gateway.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * One gateway per home: a second process is refused with the holder's process id while the first lives, and a new one
 * gets the lock once the first has been killed (the operating system released it: nothing stale is left).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HomeLockTest {

    @TempDir
    Path home;

    /** A {@link HomeLockHolder} process on {@link #home}, with its first output line. */
    private record Holder(Process process, String line) {
    }

    private Holder holder() throws IOException {
        String cp = codeSource(HomeLock.class) + java.io.File.pathSeparator + codeSource(HomeLockHolder.class);
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp", cp,
                HomeLockHolder.class.getName(), home.toString()).redirectErrorStream(true).start();
        BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line = r.readLine();
        return new Holder(p, line);
    }

    private static String codeSource(Class<?> c) {
        try {
            return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aSecondProcessIsRefusedNamingTheFirstAndAKilledHolderLeavesNoLockBehind() throws Exception {
        Holder first = holder();
        try {
            assertEquals("held " + first.process().pid(), first.line());
            Path file = home.resolve("data").resolve(HomeLock.FILE_NAME);
            assertEquals(first.process().pid() + "\n", Files.readString(file), "the holder's id is in the file");

            Holder second = holder();
            assertTrue(second.process().waitFor(30, TimeUnit.SECONDS));
            assertEquals(2, second.process().exitValue());
            assertEquals("in use " + first.process().pid() + ": another gateway (process " + first.process().pid()
                    + ") runs on the home " + home + " (it holds " + file + "): stop it ('exit 0' in its shell, "
                    + "Ctrl-C, or kill " + first.process().pid() + "), or run this one on another home with "
                    + "JAVA_OPTS=-Dconduit.gateway.home=DIR", second.line());
        } finally {
            first.process().destroyForcibly().waitFor(30, TimeUnit.SECONDS); // as a crash or kill -9 ends it
        }
        Holder third = holder();
        try {
            assertEquals("held " + third.process().pid(), third.line(), "the killed holder left no lock");
        } finally {
            third.process().getOutputStream().close(); // ends it
            assertTrue(third.process().waitFor(30, TimeUnit.SECONDS));
        }
    }

    @Test
    void thisProcessTakesItOnceAndIsRefusedTheSecondTime() throws Exception {
        HomeLock lock = HomeLock.acquire(home);
        assertTrue(lock.isHeld(), lock.toString());
        long pid = ProcessHandle.current().pid();
        HomeLock.InUse again = assertThrows(HomeLock.InUse.class, () -> HomeLock.acquire(home));
        assertEquals(pid, again.pid());
        assertTrue(again.getMessage().startsWith("another gateway (process " + pid + ") runs on the home " + home),
                again.getMessage());
        assertTrue(lock.isHeld(), "refusing the second attempt kept the lock");
    }

    @Test
    void theRefusalWithoutAProcessIdStillSaysWhatToDo() {
        assertEquals("another gateway (a process whose id it could not read) runs on the home /h (it holds "
                + "/h/data/gateway.lock): stop it, or run this one on another home with "
                + "JAVA_OPTS=-Dconduit.gateway.home=DIR",
                HomeLock.inUse(Path.of("/h"), Path.of("/h/data/gateway.lock"), -1).getMessage());
    }
}
