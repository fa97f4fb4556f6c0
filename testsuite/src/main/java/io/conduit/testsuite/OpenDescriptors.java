package io.conduit.testsuite;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** How many file descriptors this process has open: the entries of {@code /proc/self/fd} (Linux) or {@code /dev/fd}. */
final class OpenDescriptors {

    private OpenDescriptors() {
    }

    /**
     * Waits until the count held for 200 ms, at most 5 s (descriptors of connections closed just before may still be
     * closing on a loop thread).
     *
     * @return the count at the end
     */
    static long settledCount() throws IOException, InterruptedException {
        Path dir = Files.isDirectory(Path.of("/proc/self/fd")) ? Path.of("/proc/self/fd") : Path.of("/dev/fd");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        long count = count(dir);
        while (System.nanoTime() - deadline < 0) {
            Thread.sleep(200);
            long now = count(dir);
            if (now == count) {
                return now;
            }
            count = now;
        }
        return count;
    }

    private static long count(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.count();
        }
    }
}
