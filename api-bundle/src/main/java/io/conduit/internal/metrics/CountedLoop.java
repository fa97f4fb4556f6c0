package io.conduit.internal.metrics;

/**
 * An event loop that keeps {@link LoopCounters}: the I/O loops of {@code transport.spi}. The channel core adds its
 * reads, writes and errors to them on the loop's thread.
 */
public interface CountedLoop {

    /** @return this loop's counters; the same object for the loop's life */
    LoopCounters counters();
}
