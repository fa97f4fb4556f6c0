package io.conduit.handler.proxy;

import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ConnectionFacts;

/**
 * Keeps a channel's decoded {@link ProxyMessage} in its pipeline, where the decoder put it; overrides no event
 * method, so events pass it by at no cost.
 */
final class ProxiedConnection implements ChannelHandler, ConnectionFacts {
    final ProxyMessage message;

    ProxiedConnection(ProxyMessage message) {
        this.message = message;
    }

    /**
     * For {@code conduit:channels}: e.g. {@code "PROXY v2 from 203.0.113.7:51000 to 10.0.0.1:443"},
     * {@code "PROXY v2 LOCAL"} or {@code "PROXY v1 UNKNOWN"}.
     */
    @Override
    public String connectionFacts() {
        String v = "PROXY v" + message.version();
        if (message.sourceAddress() != null) {
            return v + " from " + address(message.sourceAddress()) + " to " + address(message.destinationAddress());
        }
        return message.command() == ProxyMessage.Command.PROXY ? v + " " + message.protocol() : v + " LOCAL";
    }

    /** {@code 203.0.113.7:51000}, {@code [2001:db8::1]:443}, or a Unix path as is */
    private static String address(java.net.SocketAddress a) {
        if (a instanceof java.net.InetSocketAddress i) {
            String host = i.getAddress() != null ? i.getAddress().getHostAddress() : i.getHostString();
            return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + i.getPort();
        }
        return String.valueOf(a);
    }

    @Override
    public String toString() {
        return "ProxiedConnection(" + message + ")";
    }
}
