package io.conduit.internal.nio;

import io.conduit.transport.Availability;
import io.conduit.transport.ChannelType;
import io.conduit.transport.Transport;
import io.conduit.transport.spi.IoDatagramSocket;
import io.conduit.transport.spi.IoHandlerFactory;
import io.conduit.transport.spi.IoServerSocket;
import io.conduit.transport.spi.IoStreamSocket;
import io.conduit.transport.spi.TransportProvider;
import org.osgi.service.component.annotations.Component;

import java.io.IOException;
import java.net.ProtocolFamily;
import java.net.StandardProtocolFamily;
import java.nio.channels.DatagramChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.EnumSet;

/**
 * Provides the {@code nio} transport: {@link java.nio.channels.Selector}-driven event loops and non-blocking
 * TCP, UDP and Unix-domain stream sockets — no Unix-domain datagram sockets, which java.nio lacks (JDK 17 through
 * 25): {@link io.conduit.transport.ChannelType#UNIX_DATAGRAM} is not among its channel types and asking for one fails
 * naming epoll and kqueue. Always available (ranking 10). Found through
 * {@link java.util.ServiceLoader}; inside OSGi a Declarative Services component registers it as a
 * {@code TransportProvider} service with the properties below (the annotation is build-time only). Thread-safe.
 */
@Component(service = TransportProvider.class, property = {
        "conduit.transport.name=" + NioTransportProvider.NAME,
        "conduit.transport.available:Boolean=true",
        "service.ranking:Integer=10"})
public final class NioTransportProvider implements TransportProvider {

    /** The transport's name. */
    public static final String NAME = "nio";

    private static final NioTransport TRANSPORT = new NioTransport(NAME,
            EnumSet.of(ChannelType.TCP, ChannelType.UDP, ChannelType.UNIX_STREAM), new NioTransport.Sockets() {
                @Override
                public IoStreamSocket stream(ProtocolFamily family) throws IOException {
                    return new NioStreamSocket(SocketChannel.open(family), family == StandardProtocolFamily.UNIX);
                }

                @Override
                public IoServerSocket server(ProtocolFamily family) throws IOException {
                    return new NioServerSocket(ServerSocketChannel.open(family), family == StandardProtocolFamily.UNIX);
                }

                @Override
                public IoDatagramSocket datagram() throws IOException {
                    return new NioDatagramSocket(DatagramChannel.open());
                }

                @Override
                public IoHandlerFactory handlerFactory() {
                    return NioIoHandler::new;
                }
            });

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean isNative() {
        return false;
    }

    @Override
    public int ranking() {
        return 10;
    }

    @Override
    public Availability availability() {
        return Availability.available();
    }

    @Override
    public Transport transport() {
        return TRANSPORT;
    }

    @Override
    public String toString() {
        return "TransportProvider[nio, ranking 10, available]";
    }
}
