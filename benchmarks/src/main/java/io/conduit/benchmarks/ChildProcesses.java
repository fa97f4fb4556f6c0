package io.conduit.benchmarks;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The driver's live child processes (servers, load generators, clients, keytool), so a shutdown hook can destroy
 * whatever is still running when the driver exits. Thread-safe.
 */
final class ChildProcesses {

    private final Map<Process, Boolean> live = new ConcurrentHashMap<>();

    /** Starts {@code builder}'s process and keeps it until {@link #stop} or {@link #forget}. */
    Process start(ProcessBuilder builder) throws IOException {
        Process p = builder.start();
        live.put(p, Boolean.TRUE);
        return p;
    }

    /** Closes the process's standard input (a server then exits), then destroys it if it is alive after 10 s. */
    void stop(Process process) throws InterruptedException {
        try {
            process.getOutputStream().close();
        } catch (IOException ignored) {
            // already gone
        }
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
        live.remove(process);
    }

    /** Drops a process that ended (or was destroyed) by its user. */
    void forget(Process process) {
        live.remove(process);
    }

    /** Destroys every process still kept; for the shutdown hook. */
    void destroyAll() {
        for (Process p : live.keySet()) {
            p.destroyForcibly();
        }
    }
}
