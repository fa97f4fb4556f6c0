package io.conduit.gateway.launcher;

import java.nio.file.Path;

/**
 * A process of {@link HomeLockTest}: takes the lock of the home given as argument, prints {@code held <pid>} or
 * {@code in use <pid>: <message>}, and (when held) keeps it until its standard input ends or it is killed.
 */
public final class HomeLockHolder {

    private HomeLockHolder() {
    }

    public static void main(String[] args) throws Exception {
        try {
            HomeLock.acquire(Path.of(args[0]));
        } catch (HomeLock.InUse e) {
            System.out.println("in use " + e.pid() + ": " + e.getMessage());
            System.out.flush();
            System.exit(2);
        }
        System.out.println("held " + ProcessHandle.current().pid());
        System.out.flush();
        while (System.in.read() >= 0) {
            // hold the lock until stdin ends
        }
    }
}
