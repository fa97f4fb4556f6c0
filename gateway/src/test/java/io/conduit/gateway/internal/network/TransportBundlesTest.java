package io.conduit.gateway.internal.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;

import org.junit.jupiter.api.Test;

/** What "no transport is registered" says inside the gateway, for the transport bundles installed. */
class TransportBundlesTest {

    @Test
    void stoppedTransportBundlesAreNamedWithTheCommandThatStartsOneAgain() {
        assertEquals("no transport is registered: the transport bundles io.conduit.epoll (bundle 2) and io.conduit.nio "
                + "(bundle 6) are installed but stopped: start one again, e.g. 'start 2' ('lb' lists the bundles)",
                TransportBundles.noneRegistered(List.of(new TransportBundles.Installed(2, "io.conduit.epoll", false),
                        new TransportBundles.Installed(6, "io.conduit.nio", false))));
        assertEquals("no transport is registered: the transport bundle io.conduit.nio (bundle 6) is installed but "
                + "stopped: start it again with 'start 6' ('lb' lists the bundles)",
                TransportBundles.noneRegistered(List.of(new TransportBundles.Installed(2, "io.conduit.epoll", true),
                        new TransportBundles.Installed(6, "io.conduit.nio", false))));
        assertEquals("no transport is registered: the transport bundles a (bundle 1), b (bundle 2) and c (bundle 3) are "
                + "installed but stopped: start one again, e.g. 'start 1' ('lb' lists the bundles)",
                TransportBundles.noneRegistered(List.of(new TransportBundles.Installed(1, "a", false),
                        new TransportBundles.Installed(2, "b", false), new TransportBundles.Installed(3, "c", false))));
    }

    @Test
    void aStoppedApiBundleIsToBeStartedAgain() {
        assertEquals("no transport is registered: the Conduit API bundle io.conduit.api (bundle 1), which keeps the "
                + "registry of transports, is stopped: start it again with 'start 1' ('lb' lists the bundles)",
                TransportBundles.apiStopped(new TransportBundles.Installed(1, TransportBundles.API, false)));
    }

    @Test
    void withoutAStoppedTransportBundleThePlatformsMessageApplies() {
        assertNull(TransportBundles.noneRegistered(List.of()), "none installed: add one (the platform says how)");
        assertNull(TransportBundles.noneRegistered(List.of(new TransportBundles.Installed(6, "io.conduit.nio", true))));
    }
}
