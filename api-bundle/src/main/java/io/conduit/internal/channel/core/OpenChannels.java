package io.conduit.internal.channel.core;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.conduit.channel.Channel;
import io.conduit.internal.metrics.PlatformMetrics;

/**
 * The list of open channels of every transport, fed by the shared channel core and read by the Gogo command
 * {@code conduit:channels} and by diagnostics. The core calls {@link #add(ChannelStats)} when a channel is
 * registered with its event loop and {@link #remove(ChannelStats)} when it closes; a transport that does not
 * use the shared core may call them itself.
 *
 * <p>Thread-safe and lock-free for callers: a concurrent set, compared by the {@code ChannelStats} objects'
 * {@code equals} (identity for channel objects). {@link #snapshot()} is weakly consistent: a channel opened or
 * closed during the call may or may not be in the result.
 */
public final class OpenChannels {

    /** Every channel added and not yet removed. Concurrent set; no further guard. */
    private static final Set<ChannelStats> OPEN = ConcurrentHashMap.newKeySet();

    static {
        // The platform metrics count open channels from this list; handing it in keeps them below the channel layer.
        PlatformMetrics.openChannelSource(visitor -> {
            for (ChannelStats s : list()) {
                Channel ch = s.channel();
                visitor.accept(ch.transportName(), ch.eventLoop());
            }
        });
    }

    private OpenChannels() {
    }

    /**
     * Adds an open channel.
     *
     * @return {@code false} when it was already listed
     * @throws NullPointerException when {@code stats} is {@code null}
     */
    public static boolean add(ChannelStats stats) {
        return OPEN.add(Objects.requireNonNull(stats, "stats"));
    }

    /**
     * Removes a channel that closed.
     *
     * @return {@code false} when it was not listed
     */
    public static boolean remove(ChannelStats stats) {
        return stats != null && OPEN.remove(stats);
    }

    /** @return the listed channels in no particular order; a copy, cheaper than {@link #snapshot()} */
    public static List<ChannelStats> list() {
        return new ArrayList<>(OPEN);
    }

    /** @return the listed channels, oldest first (ties by channel id); a copy */
    public static List<ChannelStats> snapshot() {
        List<ChannelStats> list = new ArrayList<>(OPEN);
        // nanoTime values are compared by difference (they may wrap); channels live far less than 292 years.
        Comparator<ChannelStats> byAge = (a, b) -> Long.signum(a.openedAtNanos() - b.openedAtNanos());
        list.sort(byAge.thenComparing(s -> s.channel().id()));
        return list;
    }
}
