package io.conduit.itest;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * This process's socket and anonymous-inode (epoll, eventfd, timerfd) descriptors, read from {@code /proc/self/fd},
 * for the swap tests' "descriptors back to their start value" checks. Plain Java: also packaged into the Karaf
 * torture test's echo bundle.
 */
final class Descriptors {

    private Descriptors() {
    }

    /**
     * Makes the JDK open the descriptors it keeps for the life of the process, so that they are counted in a "before"
     * snapshot as well as after. The one known: the Unix socket the JDK {@code dup2}s over a descriptor that is
     * closed while another thread is blocked on it ({@code preClose} of {@code sun.nio.ch}'s dispatcher). JDK 17
     * opens it at start-up, JDK 25 only when the first NIO channel is made, so a test that took its snapshot before
     * the nio transport ran found one more socket at the end on JDK 25 only.
     *
     * @throws IOException if the loopback address cannot be bound
     */
    static void openJdkDescriptors() throws IOException {
        InetSocketAddress loopback = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        try (ServerSocketChannel server = ServerSocketChannel.open(); DatagramChannel datagram = DatagramChannel.open()) {
            server.bind(loopback);
            datagram.bind(loopback);
        }
    }

    /** @return how many socket and anonymous-inode descriptors this process has open */
    static int count() {
        return list().size();
    }

    /** @return e.g. {@code ["12 -> socket:[4711] [0100007F:1F90 00000000:0000 0A]", "13 -> anon_inode:[eventpoll]"]} */
    static List<String> list() {
        File[] fds = new File("/proc/self/fd").listFiles();
        List<String> found = new ArrayList<>();
        if (fds != null) {
            for (File fd : fds) {
                try {
                    String target = Files.readSymbolicLink(fd.toPath()).toString();
                    if (target.startsWith("socket:") || target.startsWith("anon_inode:")) {
                        found.add(fd.getName() + " -> " + target + tcpLine(target));
                    }
                } catch (IOException e) {
                    // closed while listing
                }
            }
        }
        return found;
    }

    /**
     * @return for a socket, its {@code /proc/net} entry: TCP or UDP {@code " [tcp6 local remote state]"} (hexadecimal,
     *         TCP state 0A = LISTEN, 01 = ESTABLISHED, 07 = CLOSE), {@code " [unix path]"}, or a note that it is in no
     *         table; else {@code ""}; diagnostics only
     */
    private static String tcpLine(String target) {
        String inode = target.startsWith("socket:[") ? target.substring(8, target.length() - 1) : null;
        if (inode == null) {
            return "";
        }
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6", "/proc/net/udp", "/proc/net/udp6")) {
            try {
                for (String line : Files.readAllLines(Path.of(table))) {
                    String[] f = line.trim().split("\\s+");
                    if (f.length > 9 && f[9].equals(inode)) {
                        return " [" + table.substring(10) + " " + f[1] + " " + f[2] + " " + f[3] + "]";
                    }
                }
            } catch (IOException e) {
                return "";
            }
        }
        try {
            for (String line : Files.readAllLines(Path.of("/proc/net/unix"))) {
                String[] f = line.trim().split("\\s+");
                if (f.length > 6 && f[6].equals(inode)) {
                    return " [unix" + (f.length > 7 ? " " + f[7] : "") + "]";
                }
            }
        } catch (IOException e) {
            return "";
        }
        try {
            for (String line : Files.readAllLines(Path.of("/proc/net/netlink"))) {
                String[] f = line.trim().split("\\s+");
                if (f.length > 9 && f[9].equals(inode)) {
                    return " [netlink protocol " + f[1] + " port " + f[2] + "]";
                }
            }
        } catch (IOException e) {
            return "";
        }
        return " [in no tcp/udp/unix/netlink table: e.g. a socket never bound]";
    }
}
