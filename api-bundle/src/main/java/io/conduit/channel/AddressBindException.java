package io.conduit.channel;

import java.net.BindException;
import java.net.SocketAddress;
import java.util.Locale;

/**
 * A bind that failed, with the reason as a type-safe value rather than message text. Transports throw it for a
 * failed {@code bind(2)} (the native transports decide by {@code errno}); managed endpoints
 * and applications branch on {@link #reason()} — for example to retry later when the address is
 * {@linkplain Reason#IN_USE in use} — without reading the message.
 *
 * <p>The JDK's own {@link BindException} carries no {@code errno}, only the system's {@code strerror(3)} text.
 * {@link #reasonOf(Throwable)} reads that text for a JDK exception; it is the one place in Conduit that does.
 *
 * @since 0.4.0 of {@code io.conduit.channel}
 */
public class AddressBindException extends BindException {
    private static final long serialVersionUID = 1L;

    /** Why a bind failed, after bind(2)'s error numbers. */
    public enum Reason {
        /**
         * {@code EADDRINUSE}: another socket is bound to (or listens on) the address, a Unix-domain socket file
         * is in use, or another endpoint of this process claimed the address.
         */
        IN_USE,
        /** {@code EADDRNOTAVAIL}: the address is not one of this host's interfaces. */
        NOT_AVAILABLE,
        /** {@code EACCES}: the port (below 1024) or the socket file's directory needs privileges. */
        ACCESS_DENIED,
        /** Any other error. */
        OTHER
    }

    private final Reason reason;
    private final transient SocketAddress address;

    /**
     * @param message one line naming the address, the cause and what to do
     * @param reason  why the bind failed, not {@code null}
     * @param address the address that could not be bound, or {@code null} when unknown
     * @param cause   the underlying failure, or {@code null}
     * @throws NullPointerException when {@code reason} is {@code null}
     */
    public AddressBindException(String message, Reason reason, SocketAddress address, Throwable cause) {
        super(message);
        this.reason = java.util.Objects.requireNonNull(reason, "reason");
        this.address = address;
        if (cause != null) {
            initCause(cause);
        }
    }

    /** @return why the bind failed; never {@code null} */
    public Reason reason() {
        return reason;
    }

    /** @return the address that could not be bound, or {@code null} when unknown */
    public SocketAddress address() {
        return address;
    }

    /**
     * The reason of a failed bind, looked up along {@code failure}'s causes: the {@link #reason()} of the first
     * {@code AddressBindException}, else the reason a JDK {@link BindException}'s {@code strerror(3)} text names
     * ("Address already in use", "Cannot assign requested address", "Permission denied").
     *
     * @param failure any throwable, or {@code null}
     * @return the reason, or {@code null} when no {@link BindException} is among the causes
     */
    public static Reason reasonOf(Throwable failure) {
        BindException jdk = null;
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof AddressBindException a) {
                return a.reason;
            }
            if (jdk == null && t instanceof BindException b) {
                jdk = b;
            }
        }
        if (jdk == null) {
            return null;
        }
        String text = String.valueOf(jdk.getMessage()).toLowerCase(Locale.ROOT);
        if (text.contains("already in use")) {
            return Reason.IN_USE;
        }
        if (text.contains("assign requested address")) {
            return Reason.NOT_AVAILABLE;
        }
        if (text.contains("permission denied") || text.contains("access denied")) {
            return Reason.ACCESS_DENIED;
        }
        return Reason.OTHER;
    }
}
