package io.conduit.gateway.internal.network;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the last instance of each gateway component left not listening, so that the next instance can say what
 * listens now that did not then. Declarative Services makes a new component instance for every change of its
 * configuration: without this, a configuration fixed after a WARNING (a bad key, a port in use) would start listening
 * without a word.
 *
 * <p>Keyed by the component's log prefix, e.g. {@code "echo io.conduit.gateway.echo-default.cfg"}; an entry holds the
 * endpoints that were listening when the instance that had a problem closed. One entry per configuration whose last
 * instance had a problem; the next instance takes it once its endpoints are bound. Thread-safe (a concurrent map).
 */
public final class EarlierFailures {

    /** The gateway components' record: lives as long as this bundle's class loader, i.e. one gateway run. */
    public static final EarlierFailures GATEWAY = new EarlierFailures();

    private final ConcurrentHashMap<String, Set<GatewayUri>> failed = new ConcurrentHashMap<>();

    /**
     * Records how an instance of {@code component} ended.
     *
     * @param hadProblems whether it had a problem when it closed (a bad configuration, an endpoint not listening)
     * @param listening   the endpoints that were listening then
     */
    void closed(String component, boolean hadProblems, Set<GatewayUri> listening) {
        if (hadProblems) {
            failed.put(component, Set.copyOf(listening));
        } else {
            failed.remove(component);
        }
    }

    /**
     * @return the endpoints that were listening when the last instance of {@code component} closed with a problem,
     *         or {@code null} when it had none (or there was none); forgets it
     */
    Set<GatewayUri> take(String component) {
        return failed.remove(component);
    }
}
