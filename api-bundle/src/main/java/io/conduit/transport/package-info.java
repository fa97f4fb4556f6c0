/**
 * Transports, their availability, and the registry that selects one (system properties, OSGi services, {@link java.util.ServiceLoader}).
 */
@Export
@Version("0.4.0")
package io.conduit.transport;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
