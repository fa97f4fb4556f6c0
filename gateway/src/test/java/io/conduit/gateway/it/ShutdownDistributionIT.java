package io.conduit.gateway.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The distribution stopped the way a service manager stops it (SIGTERM, {@code --no-shell}): the endpoints close
 * on the transport they run on — the gateway bundle stops before the transports, so nothing follows a transport
 * that is going away — and nothing is thrown on the way out.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ShutdownDistributionIT {

    @Test
    void sigtermStopsTheGatewayQuietlyWithoutSwappingItsEndpoints() throws Exception {
        GatewayProcess gateway = GatewayProcess.start(null);
        String banner = gateway.output();
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", 7007), 5000);
            s.setSoTimeout(5000);
            byte[] ping = "ping before SIGTERM\n".getBytes(StandardCharsets.US_ASCII);
            s.getOutputStream().write(ping);
            assertArrayEquals(ping, s.getInputStream().readNBytes(ping.length), "TCP echo\n" + banner);
        }
        GatewayProcess.Exit exit = gateway.terminate();
        String out = exit.output();
        System.out.println(out);
        String afterBanner = out.substring(banner.length());
        assertEquals(143, exit.status(), "the JVM's status for SIGTERM\n" + out);
        assertFalse(afterBanner.contains("transport swap"), "no endpoint follows a stopping transport:\n" + out);
        assertFalse(afterBanner.contains("Exception"), "nothing thrown:\n" + out);
        assertFalse(afterBanner.contains("\tat "), "no stack trace:\n" + out);
        assertTrue(banner.contains("Ready: 4 endpoint(s) listening, 0 problem(s)"), banner);
    }
}
