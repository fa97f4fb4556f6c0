package io.conduit.internal.metrics;

import io.conduit.concurrent.EventLoop;

/**
 * The JMX view of one loop: {@code io.conduit:type=EventLoop,transport=<transport>,name=<loop>}. Refers to the loop
 * only until the loop terminates, when the view is unregistered.
 */
final class EventLoopView extends IoView {

    private final TransportCounters transport;
    private final EventLoop loop;
    private final LoopCounters counters;

    EventLoopView(TransportCounters transport, EventLoop loop, LoopCounters counters) {
        this.transport = transport;
        this.loop = loop;
        this.counters = counters;
    }

    @Override
    IoValues current() {
        IoValues v = new IoValues(counters.name(), transport.name);
        counters.addTo(v, System.nanoTime());
        v.openChannels = OpenChannelCounts.count().onLoop(loop);
        return v;
    }
}
