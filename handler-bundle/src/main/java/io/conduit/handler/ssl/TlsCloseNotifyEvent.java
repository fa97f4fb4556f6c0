package io.conduit.handler.ssl;

/**
 * The user event a {@link TlsHandler} fires when the peer sent {@code close_notify}: it sends no more data. With
 * {@link io.conduit.channel.ChannelOption#ALLOW_HALF_CLOSURE} on and TLS 1.3 the output stays open (the handler
 * closes the channel when the application closes it); otherwise the handler closes the channel after this event.
 */
public final class TlsCloseNotifyEvent {

    /** The only instance. */
    public static final TlsCloseNotifyEvent INSTANCE = new TlsCloseNotifyEvent();

    private TlsCloseNotifyEvent() {
    }

    @Override
    public String toString() {
        return "TlsCloseNotifyEvent";
    }
}
