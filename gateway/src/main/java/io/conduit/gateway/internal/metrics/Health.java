package io.conduit.gateway.internal.metrics;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.conduit.gateway.internal.config.Configurations;
import io.conduit.gateway.internal.status.GatewayStatus;

/**
 * The answer of {@code GET /health}: healthy when every configured endpoint listens, that is when no component reports
 * a problem ({@link GatewayStatus#now()}: an endpoint that cannot be bound or has no listener now, a bad
 * configuration, a file of the configuration directory nothing applies) and every echo and relay configuration
 * Configuration Admin holds has reported (its endpoints are bound or have failed). Otherwise one line per reason, each
 * naming the configuration and, for an endpoint, the endpoint and why, as {@code conduit:gateway} shows them.
 *
 * @param healthy  whether every configured endpoint listens
 * @param problems one line per reason it does not, in the order of the configurations' PIDs; empty when healthy
 */
public record Health(boolean healthy, List<String> problems) {

    /** Copies the list. */
    public Health {
        problems = List.copyOf(problems);
    }

    /**
     * @param statuses   the status of every component and checked file
     * @param configured the echo and relay configurations Configuration Admin holds, or an empty list when they cannot
     *                   be listed
     * @return the gateway's health now
     */
    public static Health of(Collection<? extends GatewayStatus> statuses,
            Collection<Configurations.Configured> configured) {
        List<GatewayStatus> sorted = new ArrayList<>(statuses);
        sorted.sort(Comparator.comparing(GatewayStatus::pid));
        List<String> problems = new ArrayList<>();
        Set<String> reported = new HashSet<>();
        for (GatewayStatus s : sorted) {
            reported.add(s.pid());
            for (String failure : s.now().failures()) {
                problems.add(s.pid() + " (" + s.name() + "): " + failure);
            }
        }
        List<Configurations.Configured> starting = new ArrayList<>(configured);
        starting.sort(Comparator.comparing(Configurations.Configured::pid));
        for (Configurations.Configured c : starting) {
            if (!reported.contains(c.pid())) {
                problems.add(c.pid() + " (" + c.name() + "): starting, its endpoints are not bound yet");
            }
        }
        return new Health(problems.isEmpty(), problems);
    }

    /** @return the response body: {@code ok} or the problems, one per line */
    public String text() {
        return healthy ? "ok\n" : String.join("\n", problems) + "\n";
    }
}
