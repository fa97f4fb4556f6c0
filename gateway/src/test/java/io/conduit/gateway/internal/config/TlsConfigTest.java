package io.conduit.gateway.internal.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** The tls.* keys of relay and echo configurations; the files themselves are checked by TlsGatewayIT. */
class TlsConfigTest {

    private static Map<String, Object> relay(String listen, String upstream, String... keysAndValues) {
        Map<String, Object> props = new HashMap<>(Map.of("listen", listen, "upstream", upstream,
                "service.pid", "relay~t", "service.factoryPid", RelayConfig.FACTORY_PID));
        for (int i = 0; i < keysAndValues.length; i += 2) {
            props.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return props;
    }

    private static String relayError(Map<String, Object> props) {
        return assertThrows(IllegalArgumentException.class, () -> RelayConfig.from(props)).getMessage();
    }

    @Test
    void plainEndpointsHaveNoTls() {
        RelayConfig c = RelayConfig.from(relay("tcp://127.0.0.1:1", "tcp://127.0.0.1:2"));
        assertSame(TlsConfig.NONE, c.tls());
        assertNull(c.tls().certificateSummary());
    }

    @Test
    void aTlsListenerNeedsACertificateAndKey() {
        assertEquals("listen tls://127.0.0.1:8443 needs 'tls.cert' (PEM certificate chain) and 'tls.key' (its private"
                + " key), e.g. tls.cert = gateway.pem and tls.key = gateway.key",
                relayError(relay("tls://127.0.0.1:8443", "tcp://127.0.0.1:2", "tls.cert", "gw.pem")));
        assertEquals("listen tls://127.0.0.1:7 needs 'tls.cert' (PEM certificate chain) and 'tls.key' (its private"
                + " key), e.g. tls.cert = gateway.pem and tls.key = gateway.key",
                assertThrows(IllegalArgumentException.class, () -> EchoConfig.from(Map.of("listen",
                        "tcp://127.0.0.1:7, tls://127.0.0.1:7", "service.pid", "echo~t",
                        "service.factoryPid", EchoConfig.FACTORY_PID))).getMessage());
    }

    @Test
    void tlsKeysWithoutATlsEndpointAreRefused() {
        assertEquals("'tls.cert' is set but no endpoint of 'listen' is tls://host:port; remove it, or use a tls://"
                + " endpoint", relayError(relay("tcp://127.0.0.1:1", "tcp://127.0.0.1:2", "tls.cert", "gw.pem")));
        assertEquals("'tls.upstream.ca' is set but 'upstream' is not tls://host:port; remove it, or use a tls://"
                + " endpoint", relayError(relay("tcp://127.0.0.1:1", "tcp://127.0.0.1:2", "tls.upstream.ca", "ca.pem")));
    }

    @Test
    void clientAuthenticationNeedsTheClientsCaAndAKnownWord() {
        assertEquals("'tls.clientAuth' = required needs 'tls.ca', the PEM file of the CA certificates that client"
                + " certificates chain to", relayError(relay("tls://127.0.0.1:1", "tcp://127.0.0.1:2", "tls.cert",
                "gw.pem", "tls.key", "gw.key", "tls.clientAuth", "Required")));
        assertEquals("'tls.clientAuth' = 'always' is not none, optional or required", relayError(relay(
                "tls://127.0.0.1:1", "tcp://127.0.0.1:2", "tls.cert", "gw.pem", "tls.key", "gw.key",
                "tls.clientAuth", "always")));
    }

    @Test
    void zeroCopyCannotForwardTls() {
        assertTrue(relayError(relay("tcp://127.0.0.1:1", "tls://127.0.0.1:2", "zeroCopy", "true"))
                .startsWith("'zeroCopy' = true cannot forward TLS"));
    }

    @Test
    void relativeFilesAreTakenRelativeToTheConfigurationFilesDirectory() {
        String e = relayError(relay("tls://127.0.0.1:1", "tcp://127.0.0.1:2", "tls.cert", "certs/gw.pem",
                "tls.key", "certs/gw.key", "felix.fileinstall.filename",
                "file:/nonexistent/gateway/conf/io.conduit.gateway.relay-t.cfg"));
        assertEquals("TLS of listen tls://127.0.0.1:1: the certificate chain file /nonexistent/gateway/conf/certs/gw.pem"
                + " does not exist; check the path", e);
        assertEquals(Path.of("/etc/gw.pem"), TlsConfig.path(Map.of("tls.cert", "/etc/gw.pem",
                "felix.fileinstall.filename", "file:/x/conf/a.cfg"), "tls.cert"));
    }

    @Test
    void aTlsUpstreamIsVerifiedAgainstItsHostUnlessAServerNameIsGiven() {
        RelayConfig c = RelayConfig.from(relay("tcp://127.0.0.1:1", "tls://broker.example:8883"));
        assertTrue(c.tls().upstream().current().isClient());
        assertTrue(c.tls().upstream().current().hostnameVerification());
        assertEquals("broker.example", c.tls().upstreamServerName());
        assertNull(c.tls().server());
        RelayConfig named = RelayConfig.from(relay("tcp://127.0.0.1:1", "tls://127.0.0.1:8883",
                "tls.upstream.serverName", "broker.example"));
        assertEquals("broker.example", named.tls().upstreamServerName());
        assertEquals("mutual TLS with the upstream needs both 'tls.upstream.cert' and 'tls.upstream.key'; set the"
                + " missing one", relayError(relay("tcp://127.0.0.1:1", "tls://127.0.0.1:8883", "tls.upstream.cert",
                "device.pem")));
    }
}
