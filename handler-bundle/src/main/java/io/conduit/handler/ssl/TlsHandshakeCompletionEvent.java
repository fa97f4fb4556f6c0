package io.conduit.handler.ssl;

import java.util.Objects;

/**
 * The user event a {@link TlsHandler} fires once per channel when its handshake succeeded or failed.
 */
public final class TlsHandshakeCompletionEvent {

    private final TlsHandshakeResult result;
    private final Throwable cause;

    private TlsHandshakeCompletionEvent(TlsHandshakeResult result, Throwable cause) {
        this.result = result;
        this.cause = cause;
    }

    static TlsHandshakeCompletionEvent success(TlsHandshakeResult result) {
        return new TlsHandshakeCompletionEvent(Objects.requireNonNull(result), null);
    }

    static TlsHandshakeCompletionEvent failure(Throwable cause) {
        return new TlsHandshakeCompletionEvent(null, Objects.requireNonNull(cause));
    }

    /** @return whether the handshake succeeded */
    public boolean isSuccess() {
        return result != null;
    }

    /** @return what the handshake negotiated, or null when it failed */
    public TlsHandshakeResult result() {
        return result;
    }

    /** @return why the handshake failed, or null when it succeeded */
    public Throwable cause() {
        return cause;
    }

    @Override
    public String toString() {
        return isSuccess() ? "TlsHandshakeCompletionEvent(" + result + ")" : "TlsHandshakeCompletionEvent(failed: " + cause + ")";
    }
}
