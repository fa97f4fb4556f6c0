package io.conduit.metrics;

import javax.management.MXBean;

import org.osgi.annotation.versioning.ProviderType;

/**
 * One event loop's counters. {@code getBusyNanos() / (getBusyNanos() + getWaitNanos())} is its utilisation.
 * JMX: {@code io.conduit:type=EventLoop,transport=<transport>,name=<loop>}.
 */
@MXBean
@ProviderType
public interface EventLoopMetrics extends IoMetrics {

    /** @return the loop's name, unique in the JVM, e.g. {@code epoll-loop-3} */
    String getName();

    /** @return the name of the transport that made the loop's group ({@code unnamed} for a group made directly) */
    String getTransport();

    /** @return the name of the loop's thread (to match thread dumps), or an empty string before the loop started */
    String getThreadName();
}
