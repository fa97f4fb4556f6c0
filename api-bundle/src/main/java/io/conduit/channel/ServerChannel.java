package io.conduit.channel;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A listening channel (TCP or Unix-domain) that accepts child channels. Each accepted channel is passed to
 * the server pipeline as a message through {@code channelRead}; {@link io.conduit.bootstrap.ServerBootstrap} installs a handler
 * that registers it and adds the child handler. Running out of descriptors ({@code EMFILE}/{@code ENFILE})
 * never closes a server channel: the error is fired once per burst and accepting resumes later.
 */
@ProviderType
public interface ServerChannel extends Channel {
}
