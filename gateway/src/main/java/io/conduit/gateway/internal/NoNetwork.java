package io.conduit.gateway.internal;

/**
 * Registered by {@link NetworkComponent} instead of a {@link Network} when no transport can be selected at start-up
 * (e.g. {@code -Dconduit.transport=bogus}, or a strict preference that is unavailable): nothing can listen, and the
 * launcher's banner prints {@code transport: none — <problem>} and counts it as a problem. The service property
 * {@value #PROP_PROBLEM} carries the same text, so the launcher needs no class of this bundle.
 *
 * <p>Immutable, thread-safe.
 */
public interface NoNetwork {

    /** Service property: the selection error, one line (what is wrong and what to do). */
    String PROP_PROBLEM = "conduit.transport.problem";

    /** @return the selection error, one line */
    String problem();
}
