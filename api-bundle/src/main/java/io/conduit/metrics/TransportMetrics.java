package io.conduit.metrics;

import javax.management.MXBean;

import org.osgi.annotation.versioning.ProviderType;

/**
 * One transport's counters: the sum over every event loop the transport made, including loops that stopped.
 * JMX: {@code io.conduit:type=Transport,name=<transport>}.
 */
@MXBean
@ProviderType
public interface TransportMetrics extends IoMetrics {

    /** @return the transport's name, e.g. {@code epoll} */
    String getName();

    /** @return event loops of this transport that have not terminated, now (gauge) */
    int getEventLoops();
}
