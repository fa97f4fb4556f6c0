package io.conduit.gateway.it;

import java.io.File;
import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.conduit.testsuite.RequiredTools;

/**
 * External tools on the PATH ({@link RequiredTools}: never installs anything; one printed line per missing tool, or
 * a failure under {@code CONDUIT_REQUIRE_TOOLS=true}) and free loopback ports.
 */
final class Tools {

    private Tools() {
    }

    /** Skips the calling test when {@code tool} is not on the PATH; installed by {@code apt-get install -y aptPackage}. */
    static Path require(String tool, String aptPackage) {
        return RequiredTools.require(tool, "apt-get install -y " + aptPackage);
    }

    /** @return {@code tool} on the PATH, or {@code null} (reported as {@link #require} does) when the test goes on without it */
    static Path optional(String tool, String aptPackage) {
        return RequiredTools.optional(tool, "apt-get install -y " + aptPackage);
    }

    /**
     * Ports handed out in this JVM. The kernel may give the same ephemeral port to two binds in a row once the first
     * socket closed: CI once saw TlsGatewayIT's gateway refuse a relay because two of its endpoints got one port.
     */
    private static final java.util.Set<Integer> HANDED_OUT = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** @return a loopback TCP port free now and not handed out before in this JVM */
    static int freeTcpPort() throws IOException {
        for (int i = 0; i < 100; i++) {
            try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                if (HANDED_OUT.add(s.getLocalPort())) {
                    return s.getLocalPort();
                }
            }
        }
        throw new IOException("no TCP port that was not handed out before, after 100 tries");
    }

    /** @return a loopback UDP port free now and not handed out before in this JVM */
    static int freeUdpPort() throws IOException {
        for (int i = 0; i < 100; i++) {
            try (DatagramSocket s = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
                if (HANDED_OUT.add(s.getLocalPort())) {
                    return s.getLocalPort();
                }
            }
        }
        throw new IOException("no UDP port that was not handed out before, after 100 tries");
    }

    /** Runs a command to completion (bounded), returning its combined output; fails on timeout. */
    static String run(List<String> cmd, long timeoutSeconds) throws IOException, InterruptedException {
        return start(cmd).await(timeoutSeconds);
    }

    /** A command running in the background, its combined output going to a file. */
    static final class Background {
        private final List<String> command;
        private final Process process;
        private final Path log;

        private Background(List<String> command, Process process, Path log) {
            this.command = command;
            this.process = process;
            this.log = log;
        }

        /** @return whether the command has not ended yet */
        boolean isRunning() {
            return process.isAlive();
        }

        /** @return what the command printed so far */
        String outputSoFar() throws IOException {
            return Files.readString(log);
        }

        /** Waits (bounded) for the end; @return {@code "exit N"} and the output, as {@link #run} does */
        String await(long timeoutSeconds) throws IOException, InterruptedException {
            try {
                if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                    throw new AssertionError(command + " did not finish in " + timeoutSeconds + " s; output:\n"
                            + Files.readString(log));
                }
                return "exit " + process.exitValue() + "\n" + Files.readString(log);
            } finally {
                Files.deleteIfExists(log);
            }
        }
    }

    /** Starts a command in the background; collect it with {@link Background#await}. */
    static Background start(List<String> cmd) throws IOException {
        Path log = Files.createTempFile("conduit-it-", ".log");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        return new Background(cmd, p, log);
    }
}
