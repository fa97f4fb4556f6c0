package io.conduit.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** Reads a process's standard output lines on a daemon thread; {@link #next} waits with a deadline. */
final class LineReader {
    private static final String EOF = "\u0000eof";
    private final BlockingQueue<String> queue = new LinkedBlockingQueue<>();

    LineReader(Process process) {
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                    queue.add(line);
                }
            } catch (IOException ignored) {
                // the process is gone; EOF below
            }
            queue.add(EOF);
        }, "bench-stdout-" + process.pid());
        t.setDaemon(true);
        t.start();
    }

    /** The next line, or null at end of output or when none arrived within {@code timeoutMillis}. */
    String next(long timeoutMillis) throws InterruptedException {
        String line = queue.poll(timeoutMillis, TimeUnit.MILLISECONDS);
        if (line == null || line.equals(EOF)) {
            if (line != null) {
                queue.add(EOF);
            }
            return null;
        }
        return line;
    }
}
