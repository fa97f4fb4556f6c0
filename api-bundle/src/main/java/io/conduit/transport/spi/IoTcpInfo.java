package io.conduit.transport.spi;

import org.osgi.annotation.versioning.ConsumerType;

import io.conduit.channel.TcpInfo;

/** Implemented by an {@link IoStreamSocket} of a TCP socket that can read {@code TCP_INFO} ({@code tcp(7)}). */
@ConsumerType
public interface IoTcpInfo {
    /**
     * @return the kernel's {@code struct tcp_info} of the socket, read now; callable from any thread
     * @throws UnsupportedOperationException on a socket that is not TCP
     * @throws IllegalStateException when the socket is closed
     */
    TcpInfo tcpInfo();
}
