/**
 * Channels, their pipelines, handlers, options and bootstraps: the API applications write against.
 */
@Export
@Version("0.5.0")
package io.conduit.channel;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
