package io.conduit.internal.channel;

import io.conduit.channel.ChannelOption;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Logs one warning per (transport, option) pair when an application sets an option a transport cannot
 * honour, so code written for a native transport keeps running after a fallback. Thread-safe.
 */
public final class UnsupportedOptions {

    private static final System.Logger LOG = System.getLogger(UnsupportedOptions.class.getName());
    private static final Set<String> WARNED = ConcurrentHashMap.newKeySet(); // thread-safe set

    private UnsupportedOptions() {
    }

    /**
     * Warns unless already warned for this pair.
     *
     * @return {@code true} when this call logged the warning
     */
    public static boolean warnOnce(String transportName, ChannelOption<?> option, String channelKind) {
        if (WARNED.add(transportName + '/' + option.name())) {
            LOG.log(System.Logger.Level.WARNING, "channel option " + option.name() + " is not supported by the '"
                    + transportName + "' transport (" + channelKind + "); it is ignored. This warning is logged once"
                    + " per option and transport.");
            return true;
        }
        return false;
    }
}
