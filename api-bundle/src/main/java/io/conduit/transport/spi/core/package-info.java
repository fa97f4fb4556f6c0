/**
 * Service provider interface for transport implementers: the channels of the shared channel core.
 * {@link io.conduit.transport.spi.core.IoChannels} wraps a transport's sockets ({@code io.conduit.transport.spi})
 * in channels whose semantics (reads, writes, half-closure, connect, close, accept back-off, datagram batches) the
 * core implements once for every transport. A package of its own so that the SPI the transports implement does not
 * depend on the core, which depends on it.
 */
@Export
@Version("0.1.0")
package io.conduit.transport.spi.core;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
