package io.conduit.internal.transport;

import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.conduit.channel.ChannelOption;

/**
 * Logs, once per (option, transport) pair and per class loader, that a channel option is ignored because the
 * transport lacks it (docs/transports.md, "Options"): {@code "channel option TCP_CORK is not supported by transport
 * nio; ignored"}, at WARNING on the logger {@code io.conduit.transport}. The channel core calls
 * {@link #warnOnce(ChannelOption, String)} when an application sets an option the transport does not
 * {@linkplain io.conduit.transport.Transport#supports support}.
 *
 * <p>Thread-safe and lock-free. The set of warned pairs is bounded by options × transports.
 */
public final class UnsupportedOptions {

    private static final System.Logger LOG = System.getLogger(TransportRegistry.LOGGER_NAME);

    /** Keys {@code "OPTION\0transport"} already warned about; concurrent set, no other guard. */
    private static final Set<String> WARNED = ConcurrentHashMap.newKeySet();

    private UnsupportedOptions() {
    }

    /** @return the warning text for the pair */
    public static String message(ChannelOption<?> option, String transportName) {
        return "channel option " + option.name() + " is not supported by transport " + transportName + "; ignored";
    }

    /**
     * @return {@code true} when this call logged the warning, {@code false} when the pair was warned about before
     */
    public static boolean warnOnce(ChannelOption<?> option, String transportName) {
        return warnOnce(option, transportName, LOG);
    }

    /** Like {@link #warnOnce(ChannelOption, String)}, logging to {@code log} (tests). */
    static boolean warnOnce(ChannelOption<?> option, String transportName, System.Logger log) {
        Objects.requireNonNull(option, "option");
        Objects.requireNonNull(transportName, "transportName");
        if (!WARNED.add(option.name() + '\0' + transportName)) {
            return false;
        }
        log.log(System.Logger.Level.WARNING, message(option, transportName));
        return true;
    }
}
