package io.conduit.gateway.internal.network;

import io.conduit.gateway.services.GatewayServices;

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
    String PROP_PROBLEM = GatewayServices.TRANSPORT_PROBLEM;

    /** @return the selection error, one line */
    String problem();
}
