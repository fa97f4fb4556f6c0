package io.conduit.channel;

/**
 * User event fired exactly once when the input of a {@link DuplexChannel} was shut down: the peer sent
 * end-of-stream with {@link ChannelOption#ALLOW_HALF_CLOSURE} on, or {@link DuplexChannel#shutdownInput()}
 * was called. Data read before it has already been delivered.
 */
public final class InputShutdownEvent {
    /** The only instance. */
    public static final InputShutdownEvent INSTANCE = new InputShutdownEvent();

    private InputShutdownEvent() {
    }

    @Override
    public String toString() {
        return "InputShutdownEvent";
    }
}
