/**
 * Micrometer for Conduit: {@link io.conduit.micrometer.ConduitMetricsBinder} binds the platform's metrics
 * ({@link io.conduit.transport.Transports#metrics()}) to a {@code MeterRegistry}. Micrometer is imported only by this
 * bundle; the API bundle needs none of it.
 */
@Export
@Version("0.1.0")
package io.conduit.micrometer;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
