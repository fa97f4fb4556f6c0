package io.conduit.transport;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Told when the selected transport changes (a provider appeared or went away, or the preference changed).
 * Called on the thread that made the change, after the new selection is visible through
 * {@link Transports#selected()}; keep it short and hand heavy work to another thread. Events arrive in the order
 * of the changes: when changes race, or a listener itself changes the selection, a later event may be delivered
 * by the thread that is already delivering an earlier one, after that delivery returns.
 */
@ConsumerType
@FunctionalInterface
public interface TransportChangeListener {
    /**
     * @param previous the transport selected before, or {@code null}
     * @param current the transport selected now, or {@code null} when none is available
     */
    void transportChanged(Transport previous, Transport current);
}
