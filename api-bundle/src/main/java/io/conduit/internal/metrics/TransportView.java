package io.conduit.internal.metrics;

/** The JMX view of one transport: {@code io.conduit:type=Transport,name=<transport>}. */
final class TransportView extends IoView {

    private final String name;

    TransportView(String name) {
        this.name = name;
    }

    @Override
    IoValues current() {
        return PlatformMetrics.transportValues(name);
    }
}
