package io.conduit.gateway.internal;

import java.util.List;
import java.util.Map;

/**
 * The validated configuration of one echo service (factory PID {@value #FACTORY_PID}).
 *
 * <p>Property {@code listen}: one or more tcp, udp or unix URIs separated by commas or blanks (required).
 *
 * @param name   configuration name for log lines
 * @param listen the endpoints, in configuration order
 */
public record EchoConfig(String name, List<GatewayUri> listen) {

    /** Factory PID of echo configurations ({@code conf/io.conduit.gateway.echo-<name>.cfg}). */
    public static final String FACTORY_PID = "io.conduit.gateway.echo";

    /**
     * Validates an echo configuration.
     *
     * @throws IllegalArgumentException naming the first problem found
     */
    public static EchoConfig from(Map<String, ?> props) {
        return new EchoConfig(GatewayConfig.name(props),
                GatewayConfig.uris(props, "listen", "tcp://127.0.0.1:7007, udp://127.0.0.1:7007"));
    }
}
