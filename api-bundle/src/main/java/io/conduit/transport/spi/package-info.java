/**
 * Service provider interface for transport implementers: providers, I/O handlers, the shared event loop and channel core.
 */
@Export
@Version("0.1.0")
package io.conduit.transport.spi;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
