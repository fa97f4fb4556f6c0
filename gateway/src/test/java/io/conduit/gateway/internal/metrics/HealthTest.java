package io.conduit.gateway.internal.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import io.conduit.gateway.internal.config.Configurations;
import io.conduit.gateway.internal.status.GatewayStatus;
import org.junit.jupiter.api.Test;

class HealthTest {

    private static GatewayStatus status(String pid, String name, List<String> bindings, List<String> failures) {
        return new GatewayStatus() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public String pid() {
                return pid;
            }

            @Override
            public String kind() {
                return "echo";
            }

            @Override
            public List<String> listening() {
                return bindings;
            }

            @Override
            public List<String> bindings() {
                return bindings;
            }

            @Override
            public List<String> failures() {
                return failures;
            }
        };
    }

    @Test
    void healthyWhenEveryConfiguredEndpointListens() {
        Health h = Health.of(List.of(status("io.conduit.gateway.echo~a", "a.cfg", List.of("tcp://127.0.0.1:1 [nio]"),
                List.of())), List.of(new Configurations.Configured("io.conduit.gateway.echo~a", "a.cfg", "echo")));
        assertTrue(h.healthy());
        assertEquals("ok\n", h.text());
    }

    @Test
    void everyProblemAndEveryConfigurationNotReportedYetIsAReason() {
        Health h = Health.of(List.of(
                status("io.conduit.gateway.relay~r", "r.cfg", List.of(), List.of("cannot listen on tcp://127.0.0.1:2: "
                        + "BindException: Address already in use; it is tried again every 5 s")),
                status("io.conduit.gateway.echo~a", "a.cfg", List.of("tcp://127.0.0.1:1 [nio]"), List.of())),
                List.of(new Configurations.Configured("io.conduit.gateway.echo~a", "a.cfg", "echo"),
                        new Configurations.Configured("io.conduit.gateway.echo~b", "b.cfg", "echo")));
        assertFalse(h.healthy());
        assertEquals(List.of("io.conduit.gateway.relay~r (r.cfg): cannot listen on tcp://127.0.0.1:2: BindException: "
                + "Address already in use; it is tried again every 5 s",
                "io.conduit.gateway.echo~b (b.cfg): starting, its endpoints are not bound yet"), h.problems());
        assertEquals(h.problems().get(0) + "\n" + h.problems().get(1) + "\n", h.text());
    }
}
