package io.conduit.transport;

import java.util.Objects;

/**
 * Whether a transport can be used here, and if not, why: the cause carries every failed attempt (for a
 * native transport: each library load attempt) as a suppressed exception. Immutable.
 */
public final class Availability {

    private static final Availability AVAILABLE = new Availability(null);

    private final Throwable cause;

    private Availability(Throwable cause) {
        this.cause = cause;
    }

    /** @return the available state */
    public static Availability available() {
        return AVAILABLE;
    }

    /**
     * @param cause why the transport is unavailable; its message says what is missing and what to do
     * @throws NullPointerException when {@code cause} is {@code null}
     */
    public static Availability unavailable(Throwable cause) {
        return new Availability(Objects.requireNonNull(cause, "cause"));
    }

    public boolean isAvailable() {
        return cause == null;
    }

    /** @return the cause, or {@code null} when available */
    public Throwable unavailabilityCause() {
        return cause;
    }

    /**
     * @throws UnavailableTransportException with {@link #unavailabilityCause()} as its cause when unavailable
     */
    public void ensureAvailability(String transportName) {
        if (cause != null) {
            throw new UnavailableTransportException("transport '" + transportName + "' is unavailable: "
                    + cause.getMessage(), cause);
        }
    }

    @Override
    public String toString() {
        return cause == null ? "available" : "unavailable: " + cause;
    }
}
