/**
 * Idle-state events, read timeouts and write timeouts, timed on the channel's event loop.
 */
@Export
@Version("0.1.0")
package io.conduit.handler.timeout;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
