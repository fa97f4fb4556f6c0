package io.conduit.channel;

import java.net.InetSocketAddress;

import org.osgi.annotation.versioning.ProviderType;

/** A TCP connection. */
@ProviderType
public interface SocketChannel extends DuplexChannel {
    @Override
    InetSocketAddress localAddress();

    @Override
    InetSocketAddress remoteAddress();

    @Override
    ServerChannel parent();
}
