package io.conduit.handler.proxy;

import io.conduit.channel.ChannelHandler;

/**
 * Keeps a channel's decoded {@link ProxyMessage} in its pipeline, where the decoder put it; overrides no event
 * method, so events pass it by at no cost.
 */
final class ProxiedConnection implements ChannelHandler {
    final ProxyMessage message;

    ProxiedConnection(ProxyMessage message) {
        this.message = message;
    }

    @Override
    public String toString() {
        return "ProxiedConnection(" + message + ")";
    }
}
