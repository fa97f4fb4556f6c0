package io.conduit.concurrent;

/**
 * Thrown when a blocking operation (waiting on a future) is attempted on an event-loop thread that would
 * itself have to complete it, which would dead-lock. Wait from another thread, or add a listener instead.
 */
public class BlockingOperationException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    /** @param message what blocked and on which thread */
    public BlockingOperationException(String message) {
        super(message);
    }
}
