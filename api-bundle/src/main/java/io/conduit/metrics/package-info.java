/**
 * Read-only metrics of the platform: transports, event loops, managed endpoints and the pooled allocator.
 *
 * <p>{@link io.conduit.transport.Transports#metrics()} returns a {@link io.conduit.metrics.MetricsSnapshot}: values
 * copied at one moment, safe to keep and to read from any thread. The same interfaces are MXBean interfaces: the
 * API bundle registers live views of them on the platform MBean server, so JConsole, Hawtio and Jolokia show them
 * without any Conduit class (the system property {@code conduit.jmx=false} turns that off):
 * <ul>
 * <li>{@code io.conduit:type=Transport,name=<transport>} ({@link io.conduit.metrics.TransportMetrics})</li>
 * <li>{@code io.conduit:type=EventLoop,transport=<transport>,name=<loop>} ({@link io.conduit.metrics.EventLoopMetrics})</li>
 * <li>{@code io.conduit:type=ManagedServer,name="<address>"} and
 *     {@code io.conduit:type=ManagedDatagramEndpoint,name="<address>"} ({@link io.conduit.metrics.EndpointMetrics})</li>
 * <li>{@code io.conduit:type=Allocator,name=pooled} ({@link io.conduit.metrics.AllocatorMetrics})</li>
 * </ul>
 *
 * <p><b>How the counters are kept.</b> An event loop counts in fields of its own, written only by its thread with
 * opaque writes (no lock, no atomic read-modify-write, no fence on x86-64 or AArch64) and read by the collector
 * without synchronisation. A read therefore sees each counter whole (no torn {@code long}, also on 32-bit ARM) but
 * may miss the last increments of a busy loop, and two counters read together may be a few operations apart.
 * Counters only grow; a transport's totals include the loops that already stopped, so they survive a swap, a
 * group shutdown and a refresh of the transport bundle. Open channels, pending tasks and memory in use are gauges.
 */
@Export
@Version("0.1.0")
package io.conduit.metrics;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
