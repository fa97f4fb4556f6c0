package io.conduit.gateway.internal.relay;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.conduit.gateway.internal.config.RelayConfig;
import io.conduit.gateway.internal.network.GatewayUri;

/**
 * The relays of this gateway, to refuse one that would close a loop of relays: relay x's upstream is relay y's listen
 * address and y's upstream is x's (or a longer ring). Each connection would then go round and open another, until
 * the gateway runs out of file descriptors. A chain that ends at a service (x to y, y to redis) is no loop.
 * {@link RelayConfig} refuses a relay whose upstream is its own listen address; this class checks across relays, when
 * each one starts: of the relays that close a loop, the one started last is refused.
 *
 * <p>Thread-safe: one lock over the table of running relays.
 */
final class RelayLoops {

    /** The running relays by owner (their component); guarded by itself. */
    private static final Map<Object, RelayConfig> RELAYS = new LinkedHashMap<>();

    private RelayLoops() {
    }

    /**
     * Adds {@code config} for {@code owner} unless it closes a loop with the relays added before.
     *
     * @return {@code null} when added, else why it was not, e.g. {@code cannot relay tcp://127.0.0.1:7126 to
     *         tcp://127.0.0.1:7125: the relays form a loop (...)}
     */
    static String add(Object owner, RelayConfig config) {
        synchronized (RELAYS) {
            List<RelayConfig> others = new ArrayList<>();
            RELAYS.forEach((o, c) -> {
                if (o != owner) {
                    others.add(c);
                }
            });
            List<RelayConfig> ring = ring(config, others);
            if (ring != null) {
                StringBuilder route = new StringBuilder(config.listen().toString());
                for (RelayConfig r : ring) {
                    route.append(" -> ").append(r.listen()).append(" (").append(r.name()).append(')');
                }
                route.append(" -> ").append(config.listen());
                return "cannot relay " + config.listen() + " to " + config.upstream() + ": the relays form a loop ("
                        + route + "), so every connection would go round and open another until the gateway runs out"
                        + " of file descriptors; set 'upstream' to the address of the service to relay to";
            }
            RELAYS.put(owner, config);
            return null;
        }
    }

    /** Forgets the relay of {@code owner}; nothing happens when it has none. */
    static void remove(Object owner) {
        synchronized (RELAYS) {
            RELAYS.remove(owner);
        }
    }

    /**
     * @return the relays of {@code others} that {@code start}'s upstream leads through, in order, back to
     *         {@code start}'s listen address; {@code null} when it leads nowhere back (a depth-first walk, each relay
     *         at most once)
     */
    static List<RelayConfig> ring(RelayConfig start, List<RelayConfig> others) {
        return walk(start, start.upstream(), others, new ArrayList<>());
    }

    private static List<RelayConfig> walk(RelayConfig start, GatewayUri upstream, List<RelayConfig> others,
            List<RelayConfig> path) {
        for (RelayConfig r : others) {
            if (path.contains(r) || !RelayConfig.loopsBack(r.listen(), upstream)) {
                continue;
            }
            path.add(r);
            if (RelayConfig.loopsBack(start.listen(), r.upstream())) {
                return path;
            }
            List<RelayConfig> found = walk(start, r.upstream(), others, path);
            if (found != null) {
                return found;
            }
            path.remove(path.size() - 1);
        }
        return null;
    }
}
