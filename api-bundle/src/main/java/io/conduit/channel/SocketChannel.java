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

    /**
     * Reads the kernel's facts about this connection: round-trip time, congestion window, retransmissions
     * ({@code getsockopt(TCP_INFO)}, {@code tcp(7)}). May be called from any thread; each call is one system call.
     *
     * @return a snapshot
     * @throws UnsupportedOperationException when the transport cannot read {@code TCP_INFO} (only epoll can; the
     *         JDK offers no way for nio)
     * @throws IllegalStateException when the channel is closed
     * @since 0.5
     */
    TcpInfo tcpInfo();
}
