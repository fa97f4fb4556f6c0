package io.conduit.internal.metrics;

import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

import io.conduit.concurrent.EventLoop;

/**
 * Open channels per transport and per loop, counted once per snapshot from the list the channel core keeps anyway
 * ({@code internal.channel.core.OpenChannels}), so the hot path pays nothing for this gauge. That list hands itself
 * in as the {@linkplain #source source} when its class loads, so this package needs nothing above the concurrency
 * layer.
 */
final class OpenChannelCounts {

    /** Visits each open channel with its transport name and event loop; none until the channel core's list loads. */
    private static volatile Consumer<BiConsumer<String, EventLoop>> source = visitor -> { };

    private final Map<String, long[]> byTransport = new HashMap<>();
    private final Map<EventLoop, long[]> byLoop = new IdentityHashMap<>();

    static void source(Consumer<BiConsumer<String, EventLoop>> openChannels) {
        source = Objects.requireNonNull(openChannels, "openChannels");
    }

    static OpenChannelCounts count() {
        OpenChannelCounts c = new OpenChannelCounts();
        source.accept((transport, loop) -> {
            c.byTransport.computeIfAbsent(transport, k -> new long[1])[0]++;
            if (loop != null) {
                c.byLoop.computeIfAbsent(loop, k -> new long[1])[0]++;
            }
        });
        return c;
    }

    long ofTransport(String name) {
        long[] n = byTransport.get(name);
        return n == null ? 0 : n[0];
    }

    long onLoop(EventLoop loop) {
        long[] n = byLoop.get(loop);
        return n == null ? 0 : n[0];
    }
}
