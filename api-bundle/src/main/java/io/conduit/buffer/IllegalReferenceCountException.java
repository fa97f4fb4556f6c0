package io.conduit.buffer;

/**
 * An object was used after it was freed, or released more often than it was retained. The message says
 * which operation was attempted and the count at that moment.
 */
public class IllegalReferenceCountException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    /** @param message the operation and the reference count */
    public IllegalReferenceCountException(String message) {
        super(message);
    }
}
