/**
 * Bootstraps: the builders that create a channel of a chosen {@link io.conduit.transport.Transport} and
 * {@link io.conduit.transport.ChannelType}, register it on an event loop and bind or connect it
 * ({@link io.conduit.bootstrap.Bootstrap} for clients and datagram endpoints,
 * {@link io.conduit.bootstrap.ServerBootstrap} for listeners). They live apart from {@code io.conduit.channel} so
 * that the channel API does not depend on transport selection (as in Netty's {@code bootstrap} package).
 */
@Export
@Version("0.1.0")
package io.conduit.bootstrap;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
