package io.conduit.internal.metrics;

import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;

import io.conduit.channel.Channel;
import io.conduit.concurrent.EventLoop;
import io.conduit.transport.spi.ChannelStats;
import io.conduit.transport.spi.OpenChannels;

/**
 * Open channels per transport and per loop, counted once per snapshot from {@link OpenChannels} (the list the
 * channel core keeps anyway), so the hot path pays nothing for this gauge.
 */
final class OpenChannelCounts {

    private final Map<String, long[]> byTransport = new HashMap<>();
    private final Map<EventLoop, long[]> byLoop = new IdentityHashMap<>();

    static OpenChannelCounts count() {
        OpenChannelCounts c = new OpenChannelCounts();
        for (ChannelStats s : OpenChannels.list()) {
            Channel ch = s.channel();
            c.byTransport.computeIfAbsent(ch.transportName(), k -> new long[1])[0]++;
            EventLoop loop = ch.eventLoop();
            if (loop != null) {
                c.byLoop.computeIfAbsent(loop, k -> new long[1])[0]++;
            }
        }
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
