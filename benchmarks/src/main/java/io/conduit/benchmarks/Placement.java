package io.conduit.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Where the server and the load generator may run during the measured steps ({@code bench.placements}).
 * {@code serverCpus}/{@code clientCpus} are {@code taskset -c} CPU lists, {@code null} for every CPU.
 *
 * @param prefix metric-key prefix ({@code ""} for {@code free}, so keys stay those of earlier runs)
 * @param label  row-label prefix in the table
 */
record Placement(String name, String serverCpus, String clientCpus, String prefix, String label) {

    /** {@code free}: the scheduler places both processes (what a deployment sees). */
    static Placement free() {
        return new Placement("free", null, null, "", "");
    }

    /**
     * {@code shared}: server (every thread) and load generator pinned to the same CPU. Throughput then
     * measures the CPU work per operation of server plus client (the client's part is the same for every
     * contender) and no round trip waits for a wake-up on another CPU.
     */
    static Placement shared(int cpu) {
        return new Placement("shared", Integer.toString(cpu), Integer.toString(cpu), "shared.", "[shared CPU] ");
    }

    /** {@code split}: server on one CPU, load generator on another: every round trip crosses CPUs. */
    static Placement split(int serverCpu, int clientCpu) {
        return new Placement("split", Integer.toString(serverCpu), Integer.toString(clientCpu), "split.",
                "[split CPUs] ");
    }

    /**
     * Parses {@code bench.placements}: a comma list of {@code free}, {@code shared}, {@code split} (see
     * {@link Placement}); {@code shared} uses the last CPU, {@code split} the last for the server and CPU 0 for the
     * load generator.
     *
     * @throws IllegalArgumentException for an unknown or repeated name, or {@code split} on a single CPU
     */
    static List<Placement> parse(String list) {
        int cpus = Runtime.getRuntime().availableProcessors();
        List<Placement> result = new ArrayList<>();
        for (String raw : list.split(",")) {
            String name = raw.trim().toLowerCase(Locale.ROOT);
            if (name.isEmpty()) {
                continue;
            }
            Placement placement;
            switch (name) {
                case "free": placement = Placement.free(); break;
                case "shared": placement = Placement.shared(cpus - 1); break;
                case "split":
                    if (cpus < 2) {
                        throw new IllegalArgumentException("bench.placements: 'split' needs two CPUs, this machine has 1");
                    }
                    placement = Placement.split(cpus - 1, 0);
                    break;
                default:
                    throw new IllegalArgumentException("bench.placements: unknown placement '" + raw.trim()
                            + "'; use free, shared or split");
            }
            if (result.stream().anyMatch(q -> q.name().equals(placement.name()))) {
                throw new IllegalArgumentException("bench.placements: '" + name + "' is listed twice");
            }
            result.add(placement);
        }
        if (result.isEmpty()) {
            throw new IllegalArgumentException("bench.placements is empty; use free, shared and/or split");
        }
        return result;
    }
}
