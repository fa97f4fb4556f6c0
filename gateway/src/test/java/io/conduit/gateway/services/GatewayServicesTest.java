package io.conduit.gateway.services;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import io.conduit.gateway.internal.config.ConfigurationFiles;
import io.conduit.gateway.internal.network.Network;
import io.conduit.gateway.internal.network.NoNetwork;
import io.conduit.gateway.internal.status.GatewayStatus;
import io.conduit.gateway.launcher.Main;
import org.junit.jupiter.api.Test;

/**
 * The launcher finds the bundle's services by the names in {@link GatewayServices}: each must still be the class the
 * bundle registers, and the launcher must not reach the bundle any other way.
 */
class GatewayServicesTest {

    @Test
    void everyServiceTheLauncherLooksUpIsNamedAfterTheClassTheBundleRegisters() {
        assertEquals(GatewayStatus.class.getName(), GatewayServices.STATUS_SERVICE);
        assertEquals(Network.class.getName(), GatewayServices.NETWORK_SERVICE);
        assertEquals(NoNetwork.class.getName(), GatewayServices.NO_NETWORK_SERVICE);
        assertEquals(ConfigurationFiles.class.getName(), GatewayServices.CONFIGURATION_CHECK_SERVICE);
    }

    @Test
    void theBundleTheLauncherLooksForIsTheGatewayBundle() throws IOException {
        // the module directory is the working directory of the unit tests
        List<String> bnd = Files.readAllLines(Path.of("bnd.bnd"), StandardCharsets.UTF_8);
        assertTrue(bnd.contains("Bundle-SymbolicName: " + GatewayServices.GATEWAY_BUNDLE), bnd.toString());
    }

    @Test
    void theLauncherReferencesNoClassOfTheBundle() throws IOException, URISyntaxException {
        Path classes = Path.of(Main.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path launcher = classes.resolve("io/conduit/gateway/launcher");
        List<Path> files;
        try (Stream<Path> s = Files.list(launcher)) {
            files = s.filter(p -> p.toString().endsWith(".class")).toList();
        }
        assertTrue(files.size() >= 5, files.toString());
        for (Path f : files) {
            String constantPool = new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1);
            assertFalse(constantPool.contains("io/conduit/gateway/internal/"), f + " references a class of the bundle");
        }
    }
}
