package io.conduit.gateway.internal.metrics;

/**
 * Writes metric families into a scrape of the gateway's metrics endpoint ({@code GET /metrics}). Each echo and relay
 * component registers one as an OSGi service for its endpoints ({@link ComponentMetrics}); a collector of other facts
 * (transports, event loops, the allocator) joins the scrape by registering one more service of this type.
 *
 * <p>{@link #collect} runs on an event loop of the metrics endpoint, once per scrape, possibly for two scrapes at once
 * on two loops: it reads counters racily (see {@link EndpointCounters}), takes no lock a hot path takes, and returns
 * quickly. A collector that throws is logged and the scrape goes on with the next one; what it added before it threw
 * stays in that scrape.
 */
@FunctionalInterface
public interface MetricsCollector {

    /**
     * Declares this collector's families in {@code scrape} and adds their samples.
     *
     * @param scrape the scrape being made; families other collectors declared too are shared (same name, type and
     *               help)
     */
    void collect(Exposition scrape);
}
