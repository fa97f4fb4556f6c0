package io.conduit.gateway.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.conduit.testsuite.RequiredTools;

/**
 * The gateway distribution as it runs on an ARM board: {@code bin/conduit-gateway} on Debian's JRE 17 for armv7
 * (armhf, {@code os.arch=arm}) or aarch64 (arm64), run by qemu user mode. Felix must attach the architecture's epoll
 * fragment (its {@code Bundle-NativeCode} clause with {@code processor=arm} or {@code aarch64}), extract that library
 * into its cache and load it, so that epoll is selected; then the echo endpoints answer over TCP, UDP and a Unix
 * socket, and SIGTERM stops the gateway.
 *
 * <p>The JRE is unpacked by {@code native-fragments/emulation/prepare.sh} (reusing the directory the emulated
 * epoll tests of that module filled). The distribution is copied to {@code /dev/shm}: a 32-bit JRE lists a directory
 * with {@code getdents}, which fails with {@code EOVERFLOW} ("Value too large for defined data type") for the 64-bit
 * inode numbers of this host's ext4 under qemu, while tmpfs numbers its inodes in 32 bits. A real 32-bit board has
 * no such inodes; an earlier run that used the build directory stopped in the launcher's listing of
 * {@code bundles/}.
 *
 * <p>Without qemu, the fragment or the foreign architecture in apt, the test is skipped with one line
 * ({@link RequiredTools}; a failure under {@code CONDUIT_REQUIRE_TOOLS=true}).
 */
@Timeout(value = 420, unit = TimeUnit.SECONDS)
class EmulatedArmGatewayIT {

    /** Felix, SCR and Config Admin start in 60-100 s on an emulated JVM sharing 2 cores with a build. */
    private static final long BANNER_SECONDS = 300;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"armv7", "aarch64"})
    void felixAttachesTheArchitecturesFragmentEpollIsSelectedAndEveryEndpointEchoes(String arch) throws Exception {
        String qemu = arch.equals("armv7") ? "qemu-arm-static" : "qemu-aarch64-static";
        RequiredTools.require(qemu, "apt-get install -y qemu-user-static");
        Path dist = GatewayProcess.distribution();
        String fragment = "conduit-native-epoll-linux-" + arch + "-";
        boolean built;
        try (Stream<Path> bundles = Files.list(dist.resolve("bundles"))) {
            built = bundles.anyMatch(p -> p.getFileName().toString().startsWith(fragment));
        }
        if (!built) {
            String compiler = arch.equals("armv7") ? "gcc-arm-linux-gnueabihf libc6-dev-armhf-cross"
                    : "gcc-aarch64-linux-gnu libc6-dev-arm64-cross";
            org.junit.jupiter.api.Assumptions.assumeTrue(false, RequiredTools.missing("the distribution has no "
                    + arch + " epoll fragment (its cross compiler was absent at build time)", "install it with "
                    + "'apt-get install -y " + compiler + "' and build again"));
        }
        Path java = emulatedJava(arch);

        Path shm = Path.of("/dev/shm");
        Path work = Files.createTempDirectory(Files.isDirectory(shm) ? shm : Path.of(System.getProperty(
                "java.io.tmpdir")), "conduit-" + arch + "-");
        try {
            Path home = work.resolve("gateway");
            copy(dist, home);
            int tcp = Tools.freeTcpPort();
            int udp = Tools.freeUdpPort();
            Path sock = home.resolve("run/echo.sock");
            Files.writeString(home.resolve("conf/io.conduit.gateway.echo-default.cfg"), "listen = tcp://127.0.0.1:"
                    + tcp + ", udp://127.0.0.1:" + udp + ", unix:" + sock + "\n", StandardCharsets.ISO_8859_1);
            Files.writeString(home.resolve("conf/io.conduit.gateway.metrics.cfg"), "listen = tcp://127.0.0.1:"
                    + Tools.freeTcpPort() + "\n", StandardCharsets.ISO_8859_1);
            Path javaHome = work.resolve("jre");
            Files.createDirectories(javaHome.resolve("bin"));
            Path launcher = javaHome.resolve("bin/java");
            // C1 only and the serial collector: the emulated JIT and GC threads cost more than they save here.
            // A heap the size of a board's: ergonomics gave the 32-bit JVM 908 MB (a quarter of this host's memory,
            // capped), which left its 3 GB address space under qemu short; a CI run's armv7 JVM died when its JIT
            // could not malloc 100 KB ("insufficient memory", Arena::Amalloc).
            Files.writeString(launcher, "#!/bin/sh\nexec " + qemu + " -L '" + rootOf(java) + "' '" + java
                    + "' -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xmx256m \"$@\"\n");
            Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwxr-xr-x"));

            long started = System.nanoTime();
            GatewayProcess gateway = GatewayProcess.start(home, javaHome, BANNER_SECONDS);
            try {
                long bannerSeconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
                String banner = gateway.output();
                System.out.println("[emulation] " + arch + ": gateway banner after " + bannerSeconds + " s\n" + banner);
                assertTrue(banner.contains(" on Java 17."), banner);
                assertTrue(banner.contains("selected: epoll"), banner);
                assertTrue(banner.contains("Ready: 4 endpoint(s) listening, 0 problem(s)"), banner);

                String library = "libconduit_epoll_" + arch + ".so";
                List<String> extracted = librariesIn(home.resolve("data"));
                // the io_uring bundle probes at start and so loads its own arch fragment's library too, where built
                // (under qemu user mode io_uring_setup then fails and io_uring is unavailable; epoll stays selected)
                List<String> expected = iouringFragmentIn(dist, arch)
                        ? List.of(library, "libconduit_iouring_" + arch + ".so") : List.of(library);
                assertEquals(expected, extracted, "Felix extracted only the " + arch + " fragments' libraries");
                String maps = Files.readString(Path.of("/proc/" + gateway.pid() + "/maps"));
                assertTrue(maps.contains("/bundle.jar-lib/") && maps.contains(library),
                        "the emulated JVM mapped " + library + " from Felix's cache");

                byte[] data = new byte[1 << 20];
                new Random(7).nextBytes(data);
                assertArrayEquals(data, tcpEcho(tcp, data), "TCP echo");
                assertArrayEquals(data, unixEcho(sock, data), "Unix echo");
                byte[] datagram = "one datagram".getBytes(StandardCharsets.US_ASCII);
                assertArrayEquals(datagram, udpEcho(udp, datagram), "UDP echo");

                GatewayProcess.Exit exit = gateway.terminate();
                assertEquals(143, exit.status(), exit.output());
            } finally {
                gateway.close();
            }
        } finally {
            deleteTree(work);
        }
    }

    /** Runs prepare.sh (nothing to do when the emulated tests' directory is filled) and returns the emulated java. */
    private static Path emulatedJava(String arch) throws IOException, InterruptedException {
        Path script = Path.of(System.getProperty("conduit.emulation.prepare"));
        Path root = Path.of(System.getProperty("conduit.emulation.target")).resolve("root-" + arch);
        Process p = new ProcessBuilder(script.toString(), arch, root.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(300, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(script + " " + arch + " did not finish in 300 s:\n" + out);
        }
        if (p.exitValue() == 3) {
            String debArch = arch.equals("armv7") ? "armhf" : "arm64";
            org.junit.jupiter.api.Assumptions.assumeTrue(false, RequiredTools.missing("apt knows no " + debArch
                    + " packages", "run 'dpkg --add-architecture " + debArch + " && apt-get update'"));
        }
        assertEquals(0, p.exitValue(), script + " " + arch + " failed:\n" + out);
        List<String> lines = out.lines().toList();
        return Path.of(lines.get(lines.size() - 1));
    }

    /** @return the qemu root of {@code .../root-ARCH/usr/lib/jvm/NAME/bin/java}: {@code .../root-ARCH} */
    private static Path rootOf(Path java) {
        return java.getParent().getParent().getParent().getParent().getParent().getParent();
    }

    /** @return whether the distribution {@code dist} ships the io_uring fragment of {@code arch} */
    private static boolean iouringFragmentIn(Path dist, String arch) throws IOException {
        try (Stream<Path> bundles = Files.list(dist.resolve("bundles"))) {
            return bundles.anyMatch(p -> p.getFileName().toString().startsWith("conduit-native-iouring-linux-" + arch
                    + "-"));
        }
    }

    private static List<String> librariesIn(Path data) throws IOException {
        try (Stream<Path> files = Files.walk(data)) {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("libconduit_")).sorted()
                    .toList();
        }
    }

    private static byte[] tcpEcho(int port, byte[] data) throws Exception {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 10_000);
            s.setSoTimeout(60_000);
            CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
                try {
                    s.getOutputStream().write(data);
                    s.shutdownOutput();
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            byte[] echoed = readAll(s.getInputStream());
            writer.get(60, TimeUnit.SECONDS);
            return echoed;
        }
    }

    private static byte[] unixEcho(Path path, byte[] data) throws Exception {
        try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            ch.connect(UnixDomainSocketAddress.of(path));
            CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
                try {
                    ByteBuffer b = ByteBuffer.wrap(data);
                    while (b.hasRemaining()) {
                        ch.write(b);
                    }
                    ch.shutdownOutput();
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteBuffer b = ByteBuffer.allocate(64 * 1024);
            while (ch.read(b) >= 0) {
                out.write(b.array(), 0, b.position());
                b.clear();
            }
            writer.get(60, TimeUnit.SECONDS);
            return out.toByteArray();
        }
    }

    private static byte[] udpEcho(int port, byte[] data) throws IOException {
        try (DatagramSocket s = new DatagramSocket()) {
            s.setSoTimeout(2_000);
            DatagramPacket reply = new DatagramPacket(new byte[2048], 2048);
            for (int attempt = 1; ; attempt++) {
                s.send(new DatagramPacket(data, data.length, InetAddress.getLoopbackAddress(), port));
                try {
                    s.receive(reply);
                    return java.util.Arrays.copyOf(reply.getData(), reply.getLength());
                } catch (java.net.SocketTimeoutException e) {
                    if (attempt == 10) {
                        throw e;
                    }
                }
            }
        }
    }

    private static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        in.transferTo(out);
        return out.toByteArray();
    }

    private static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                Path rel = from.relativize(p);
                if (rel.startsWith("data") || rel.startsWith("run")) {
                    continue;
                }
                Path target = to.resolve(rel.toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target, StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            for (Path p : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        }
    }
}
