package io.conduit.gateway.internal.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import io.conduit.gateway.internal.config.RelayConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Relays of one gateway that would pass each connection round a ring are refused; chains to a service are not. */
class RelayLoopsTest {

    private final Object x = new Object();
    private final Object y = new Object();
    private final Object z = new Object();

    @AfterEach
    void forget() {
        RelayLoops.remove(x);
        RelayLoops.remove(y);
        RelayLoops.remove(z);
    }

    private static RelayConfig relay(String name, String listen, String upstream) {
        return RelayConfig.from(Map.of("listen", listen, "upstream", upstream, "felix.fileinstall.filename",
                "file:/gw/conf/io.conduit.gateway.relay-" + name + ".cfg"));
    }

    @Test
    void twoRelaysPointingAtEachOtherAreALoopAndTheSecondIsRefused() {
        assertNull(RelayLoops.add(x, relay("x", "tcp://127.0.0.1:17125", "tcp://127.0.0.1:17126")));
        assertEquals("cannot relay tcp://127.0.0.1:17126 to tcp://127.0.0.1:17125: the relays form a loop ("
                + "tcp://127.0.0.1:17126 -> tcp://127.0.0.1:17125 (io.conduit.gateway.relay-x.cfg) -> "
                + "tcp://127.0.0.1:17126), so every connection would go round and open another until the gateway runs "
                + "out of file descriptors; set 'upstream' to the address of the service to relay to",
                RelayLoops.add(y, relay("y", "tcp://127.0.0.1:17126", "tcp://127.0.0.1:17125")));
        RelayLoops.remove(x);
        assertNull(RelayLoops.add(y, relay("y", "tcp://127.0.0.1:17126", "tcp://127.0.0.1:17125")),
                "alone it is a relay to an address nothing of this gateway listens on");
    }

    @Test
    void aRingOfThreeThroughTheWildcardIsALoopAndAChainToAServiceIsNot() {
        assertNull(RelayLoops.add(x, relay("x", "tcp://0.0.0.0:17131", "tcp://127.0.0.1:17132")));
        assertNull(RelayLoops.add(y, relay("y", "tcp://127.0.0.1:17132", "tcp://127.0.0.1:6379")), "a chain to redis");
        String loop = RelayLoops.add(z, relay("z", "tcp://127.0.0.1:17133", "tcp://localhost:17131"));
        assertNull(loop, "z reaches x, x reaches y, y reaches redis: no ring");
        RelayLoops.remove(y);
        String ring = RelayLoops.add(y, relay("y", "tcp://127.0.0.1:17132", "tcp://127.0.0.1:17133"));
        assertTrue(ring != null && ring.contains("the relays form a loop (tcp://127.0.0.1:17132 -> tcp://127.0.0.1:17133"
                + " (io.conduit.gateway.relay-z.cfg) -> tcp://0.0.0.0:17131 (io.conduit.gateway.relay-x.cfg) -> "
                + "tcp://127.0.0.1:17132)"), ring);
    }

    @Test
    void unixAndUdpRingsAreLoopsToo() {
        assertNull(RelayLoops.add(x, relay("x", "unix:/tmp/conduit-x.sock", "unix:@conduit-y")));
        assertTrue(RelayLoops.add(y, relay("y", "unix:@conduit-y", "unix:/tmp/conduit-x.sock")) != null);
        assertNull(RelayLoops.add(z, relay("z", "udp://127.0.0.1:17141", "udp://127.0.0.1:17142")));
        RelayLoops.remove(x);
        assertTrue(RelayLoops.add(x, relay("x", "udp://127.0.0.1:17142", "udp://127.0.0.1:17141")) != null);
    }
}
