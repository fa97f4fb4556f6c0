package io.conduit.testsuite;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * What the Linux kernel says about this network namespace's loopback TCP listeners, from {@code /proc/net/tcp} and
 * {@code /proc/net/tcp6} (proc(5)): a dual-stack socket bound to 127.0.0.1 is listed in the second as
 * {@code ::ffff:127.0.0.1}. For tests that must wait for the kernel rather than guess with a timeout. Any thread.
 */
public final class KernelSockets {

    /** State {@code 0A} of a line of {@code /proc/net/tcp}: {@code TCP_LISTEN}. */
    private static final String LISTEN = "0A";

    private KernelSockets() {
    }

    /**
     * @param port a loopback TCP port
     * @return how many sockets listen on 127.0.0.1:{@code port} (several with {@code SO_REUSEPORT}); -1 where the
     *         kernel lists no sockets there (not Linux)
     * @throws IOException when a table cannot be read
     */
    public static int listenersOn(int port) throws IOException {
        int n = -1;
        for (String[] f : listening(port)) {
            n = Math.max(n, 0) + (f == null ? 0 : 1);
        }
        return n;
    }

    /**
     * @param port a loopback TCP port with one listener
     * @return the length of its accept queue (connections the kernel completed that nobody accepted yet: the
     *         {@code rx_queue} field); -1 where the kernel lists no such listener
     * @throws IOException when a table cannot be read
     */
    public static long acceptQueueLength(int port) throws IOException {
        for (String[] f : listening(port)) {
            if (f != null) {
                return Long.parseLong(f[4].substring(f[4].indexOf(':') + 1), 16);
            }
        }
        return -1;
    }

    /** @return the fields of each listening line on the port; one {@code null} per readable table without one */
    private static List<String[]> listening(int port) throws IOException {
        String local = String.format("0100007F:%04X", port);
        List<String[]> lines = new java.util.ArrayList<>();
        for (String name : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            Path table = Path.of(name);
            if (!Files.isReadable(table)) {
                continue;
            }
            boolean found = false;
            for (String line : Files.readAllLines(table)) {
                // sl local_address rem_address st tx_queue:rx_queue ...
                String[] f = line.trim().split("\\s+");
                if (f.length > 4 && f[1].endsWith(local) && f[3].equals(LISTEN)) {
                    lines.add(f);
                    found = true;
                }
            }
            if (!found) {
                lines.add(null);
            }
        }
        return lines;
    }
}
