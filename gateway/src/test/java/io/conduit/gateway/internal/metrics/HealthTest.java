package io.conduit.gateway.internal.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import io.conduit.gateway.internal.config.Configurations;
import io.conduit.gateway.internal.network.Listeners;
import io.conduit.gateway.internal.status.ComponentStatus;
import io.conduit.gateway.internal.status.GatewayStatus;
import org.junit.jupiter.api.Test;

class HealthTest {

    /** @return the status of an echo whose every endpoint listens, except for one problem per {@code failures} */
    private static GatewayStatus status(String pid, String name, String... failures) {
        Listeners listeners = new Listeners("echo " + name);
        for (String f : failures) {
            listeners.fail(f);
        }
        return new ComponentStatus(name, pid, "echo", listeners);
    }

    @Test
    void healthyWhenEveryConfiguredEndpointListens() {
        Health h = Health.of(List.of(status("io.conduit.gateway.echo~a", "a.cfg")),
                List.of(new Configurations.Configured("io.conduit.gateway.echo~a", "a.cfg", "echo")));
        assertTrue(h.healthy());
        assertEquals("ok\n", h.text());
    }

    @Test
    void everyProblemAndEveryConfigurationNotReportedYetIsAReason() {
        Health h = Health.of(List.of(
                status("io.conduit.gateway.relay~r", "r.cfg", "cannot listen on tcp://127.0.0.1:2: "
                        + "BindException: Address already in use; it is tried again every 5 s"),
                status("io.conduit.gateway.echo~a", "a.cfg")),
                List.of(new Configurations.Configured("io.conduit.gateway.echo~a", "a.cfg", "echo"),
                        new Configurations.Configured("io.conduit.gateway.echo~b", "b.cfg", "echo")));
        assertFalse(h.healthy());
        assertEquals(List.of("io.conduit.gateway.relay~r (r.cfg): cannot listen on tcp://127.0.0.1:2: BindException: "
                + "Address already in use; it is tried again every 5 s",
                "io.conduit.gateway.echo~b (b.cfg): starting, its endpoints are not bound yet"), h.problems());
        assertEquals(h.problems().get(0) + "\n" + h.problems().get(1) + "\n", h.text());
    }
}
