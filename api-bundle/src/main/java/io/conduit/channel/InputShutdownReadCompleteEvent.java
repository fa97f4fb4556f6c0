package io.conduit.channel;

/**
 * User event fired exactly once after {@link InputShutdownEvent}, when no further read will happen on the
 * channel. The transport stops polling for input afterwards, so there is no read spin.
 */
public final class InputShutdownReadCompleteEvent {
    /** The only instance. */
    public static final InputShutdownReadCompleteEvent INSTANCE = new InputShutdownReadCompleteEvent();

    private InputShutdownReadCompleteEvent() {
    }

    @Override
    public String toString() {
        return "InputShutdownReadCompleteEvent";
    }
}
