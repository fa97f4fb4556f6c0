package io.conduit.benchmarks;

import java.util.List;

/**
 * One server configuration: a kind understood by {@link EchoServer} plus extra JVM flags.
 *
 * @param baseline the contender its ratios are taken against (itself for a baseline)
 */
record Contender(String name, String kind, List<String> jvmFlags, String note, String baseline) {

    Contender(String name, String kind, List<String> jvmFlags, String note) {
        this(name, kind, jvmFlags, note, LoadBenchmark.BASELINE);
    }

    /** Whether the load generator sends length-field frames to this server. */
    boolean framed() {
        return kind.endsWith("-framed");
    }

    /** Whether this server speaks TLS (then {@link TlsLoadClient} is the load). */
    boolean tls() {
        return kind.contains("-tls");
    }
}
