/**
 * {@link io.conduit.channel.embedded.EmbeddedChannel}: a channel without I/O for unit-testing handlers, and its
 * {@link io.conduit.channel.embedded.EmbeddedEventLoop}, which runs tasks on the test's own thread.
 */
@Export
@Version("0.1.0")
package io.conduit.channel.embedded;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
