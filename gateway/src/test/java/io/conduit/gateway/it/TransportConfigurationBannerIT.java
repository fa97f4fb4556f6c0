package io.conduit.gateway.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A rejected {@code conf/io.conduit.transport.cfg} is a problem of the banner. With {@code strict = yes} the API
 * bundle rejected the file with a SEVERE line, yet the banner said {@code 0 problem(s)}. On a home of the test's own
 * with one echo on a free port (never the default ports).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class TransportConfigurationBannerIT {

    @TempDir
    Path home;

    @Test
    void aRejectedTransportConfigurationIsCountedInTheBanner() throws Exception {
        Files.createSymbolicLink(home.resolve("bundles"), GatewayProcess.distribution().resolve("bundles"));
        Path conf = Files.createDirectories(home.resolve("conf"));
        int port = Tools.freeTcpPort();
        Files.writeString(conf.resolve("io.conduit.gateway.echo-one.cfg"), "listen = tcp://127.0.0.1:" + port + "\n");
        Files.writeString(conf.resolve("io.conduit.transport.cfg"), "transport = nio\nstrict = yes\n");
        try (GatewayProcess g = GatewayProcess.start(null, "-Dconduit.transport=nio -Dconduit.gateway.home=" + home)) {
            String out = g.output();
            assertTrue(out.contains("SEVERE"), out);
            assertTrue(out.contains("\n  configuration io.conduit.transport REJECTED, none of its values applied: "
                    + "property strict='yes' is not a boolean"), out);
            assertTrue(out.contains("Ready: 1 endpoint(s) listening, 1 problem(s)"), out);
        }
    }
}
