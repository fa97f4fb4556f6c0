/**
 * Channels, their pipelines, handlers and options: the API applications write against (the bootstraps that make
 * channels are in {@code io.conduit.bootstrap}).
 */
@Export
@Version("0.7.0")
package io.conduit.channel;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
