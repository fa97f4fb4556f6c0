package io.conduit.gateway.internal.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.conduit.channel.Channel;
import io.conduit.channel.ChannelInitializer;
import io.conduit.gateway.internal.config.RelayConfig;
import io.conduit.gateway.internal.network.BootstrapNetwork;
import io.conduit.gateway.internal.network.Network;
import io.conduit.transport.Transport;
import io.conduit.transport.Transports;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A TCP relay with {@code zeroCopy=true}: a curl-like download (a request line up, 40 MiB down, then the server's end
 * of stream) arrives with the same SHA-256, spliced on epoll and io_uring and copied on nio (which cannot splice).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ZeroCopyRelayTest {

    private static final int SIZE = 40 << 20;

    @AfterEach
    void clearPreference() {
        Transports.setPreference(null);
    }

    @Test
    void epollSplicesBothDirections() throws Exception {
        long before = RelayFrontendHandler.ZERO_COPY_DIRECTIONS.get();
        download("epoll");
        assertEquals(before + 2, RelayFrontendHandler.ZERO_COPY_DIRECTIONS.get(), "both directions were spliced");
    }

    /** io_uring splices too (issue 20): its sockets have a receive in flight when the relay starts forwarding. */
    @Test
    void ioUringSplicesBothDirections() throws Exception {
        long before = RelayFrontendHandler.ZERO_COPY_DIRECTIONS.get();
        download("io_uring");
        assertEquals(before + 2, RelayFrontendHandler.ZERO_COPY_DIRECTIONS.get(), "both directions were spliced");
    }

    @Test
    void nioFallsBackToCopying() throws Exception {
        long before = RelayFrontendHandler.ZERO_COPY_DIRECTIONS.get();
        download("nio");
        assertEquals(before, RelayFrontendHandler.ZERO_COPY_DIRECTIONS.get(), "nio cannot splice: copied");
    }

    private static void download(String transportName) throws Exception {
        Transports.setPreference(transportName);
        Transport transport = Transports.get(transportName);
        assertEquals(transportName, Transports.selected().name(), Transports.selection().explain());
        byte[] file = new byte[SIZE];
        new Random(SIZE).nextBytes(file);
        Network.Bound bound = null;
        try (ServerSocket origin = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
            CompletableFuture<String> request = CompletableFuture.supplyAsync(() -> serveOnce(origin, file));
            RelayConfig config = RelayConfig.from(Map.of("listen", "tcp://127.0.0.1:0",
                    "upstream", "tcp://127.0.0.1:" + origin.getLocalPort(), "zeroCopy", "true"));
            BootstrapNetwork network = new BootstrapNetwork();
            bound = network.listen(config.listen(), RelayFrontendHandler.connectionOptions(config),
                    new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast(new RelayFrontendHandler(config, network));
                        }
                    }).toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertEquals(transportName, bound.transportName());
            try (Socket client = new Socket()) {
                client.connect(bound.localAddress(), 5000);
                client.setSoTimeout(60_000);
                client.getOutputStream().write("GET /big.bin\n".getBytes(StandardCharsets.US_ASCII));
                MessageDigest md = MessageDigest.getInstance("SHA-256");
                long received = 0;
                byte[] buf = new byte[1 << 16];
                try (InputStream in = client.getInputStream()) {
                    int n;
                    while ((n = in.read(buf)) > 0) { // to the end of stream the server's shutdown sends through
                        md.update(buf, 0, n);
                        received += n;
                    }
                }
                assertEquals(SIZE, received);
                assertEquals(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(file)),
                        HexFormat.of().formatHex(md.digest()), "SHA-256 through the " + transportName + " relay");
            }
            assertEquals("GET /big.bin", request.get(10, TimeUnit.SECONDS));
        } finally {
            if (bound != null) {
                bound.close();
            }
        }
    }

    /** Accepts one connection, reads its request line, sends {@code file}, then closes. @return the request line */
    private static String serveOnce(ServerSocket origin, byte[] file) {
        try (Socket s = origin.accept(); InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
            s.setSoTimeout(30_000);
            StringBuilder line = new StringBuilder();
            int c;
            while ((c = in.read()) >= 0 && c != '\n') {
                line.append((char) c);
            }
            for (int off = 0; off < file.length; off += 1 << 20) {
                out.write(file, off, Math.min(1 << 20, file.length - off));
            }
            s.shutdownOutput();
            assertTrue(in.read() < 0, "the relay forwards the client's close");
            return line.toString();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
