package io.conduit.gateway.internal.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import io.conduit.gateway.internal.network.GatewayUri;
import org.junit.jupiter.api.Test;

class MetricsConfigTest {

    private static final String FILE = "felix.fileinstall.filename";

    @Test
    void oneTcpOrUnixEndpoint() {
        assertEquals(GatewayUri.parse("tcp://127.0.0.1:9464"), MetricsConfig.from(Map.of("listen",
                "tcp://127.0.0.1:9464", FILE, "file:/gw/conf/io.conduit.gateway.metrics.cfg")).listen());
        assertEquals(GatewayUri.parse("unix:/run/m.sock"), MetricsConfig.from(Map.of("listen", " unix:/run/m.sock "))
                .listen());
    }

    @Test
    void itsConnectionLimitAndIdleTimeoutHaveDefaultsAndCanBeSet() {
        MetricsConfig defaults = MetricsConfig.from(Map.of("listen", "tcp://127.0.0.1:9464"));
        assertEquals(64, defaults.guards().maxConnections());
        assertEquals(60_000, defaults.guards().idleTimeoutMillis());
        MetricsConfig set = MetricsConfig.from(Map.of("listen", "tcp://127.0.0.1:9464", "max.connections", "500",
                "idle.timeout.ms", "5000"));
        assertEquals(500, set.guards().maxConnections());
        assertEquals(5_000, set.guards().idleTimeoutMillis());
        String bad = assertThrows(IllegalArgumentException.class, () -> MetricsConfig.from(Map.of("listen",
                "tcp://127.0.0.1:9464", "max.connections", "0"))).getMessage();
        assertTrue(bad.contains("'max.connections' = 0"), bad);
    }

    @Test
    void noListenTurnsItOff() {
        assertNull(MetricsConfig.from(Map.of("listen", "  ")).listen());
        assertNull(MetricsConfig.from(Map.of()).listen());
    }

    @Test
    void udpTwoEndpointsAndAFactoryConfigurationAreErrorsNamingTheFix() {
        String udp = assertThrows(IllegalArgumentException.class,
                () -> MetricsConfig.from(Map.of("listen", "udp://127.0.0.1:9464"))).getMessage();
        assertTrue(udp.contains("speaks HTTP, over tcp:// or unix:"), udp);
        String two = assertThrows(IllegalArgumentException.class,
                () -> MetricsConfig.from(Map.of("listen", "tcp://127.0.0.1:1, tcp://127.0.0.1:2"))).getMessage();
        assertTrue(two.contains("listens on one"), two);
        String factory = assertThrows(IllegalArgumentException.class, () -> MetricsConfig.from(Map.of("listen",
                "tcp://127.0.0.1:1", "service.factoryPid", MetricsConfig.PID,
                FILE, "file:/gw/conf/io.conduit.gateway.metrics-x.cfg"))).getMessage();
        assertEquals("io.conduit.gateway.metrics-x.cfg is a factory configuration, but there is one metrics endpoint:"
                + " name the file io.conduit.gateway.metrics.cfg", factory);
        String typo = assertThrows(IllegalArgumentException.class, () -> MetricsConfig.from(Map.of("lisen",
                "tcp://127.0.0.1:1", "listen", "x"))).getMessage();
        assertTrue(typo.startsWith("unknown key 'lisen' (did you mean 'listen'?)"), typo);
    }
}
