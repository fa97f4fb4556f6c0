package io.conduit.internal.nio;

import io.conduit.transport.Availability;
import io.conduit.transport.ChannelType;
import io.conduit.transport.Transport;
import io.conduit.transport.spi.IoDatagramSocket;
import io.conduit.transport.spi.IoHandlerFactory;
import io.conduit.transport.spi.IoServerSocket;
import io.conduit.transport.spi.IoStreamSocket;
import io.conduit.transport.spi.TransportProvider;

import java.io.IOException;
import java.net.ProtocolFamily;
import java.net.StandardProtocolFamily;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.EnumSet;

/**
 * Provides the {@code nio-vthread} transport: blocking {@code java.nio} stream sockets driven by virtual threads
 * (per connection one reader and one writer), events delivered on the channel's event loop so handlers see the
 * same semantics as with {@code nio}. TCP and Unix-domain stream sockets; no Unix-domain datagram sockets (as
 * {@code nio}) and no UDP (a blocking
 * {@link java.nio.channels.DatagramChannel#connect} waits for a pending blocking {@code receive}, so a reader
 * virtual thread would stall the loop; UDP stays with {@code nio}). Available only on a 21+ JVM
 * (ranking 5); on 17 {@link #availability()} says a 21+ JVM is needed. Thread-safe.
 */
public final class NioVirtualThreadTransportProvider implements TransportProvider {

    /** The transport's name. */
    public static final String NAME = "nio-vthread";

    private static final NioTransport TRANSPORT = new NioTransport(NAME,
            EnumSet.of(ChannelType.TCP, ChannelType.UNIX_STREAM), new NioTransport.Sockets() {
                @Override
                public IoStreamSocket stream(ProtocolFamily family) throws IOException {
                    return new VThreadStreamSocket(SocketChannel.open(family), family == StandardProtocolFamily.UNIX);
                }

                @Override
                public IoServerSocket server(ProtocolFamily family) throws IOException {
                    return new VThreadServerSocket(ServerSocketChannel.open(family), family == StandardProtocolFamily.UNIX);
                }

                @Override
                public IoDatagramSocket datagram() {
                    throw new UnsupportedOperationException("the 'nio-vthread' transport has no UDP channels; use 'nio'");
                }

                @Override
                public IoHandlerFactory handlerFactory() {
                    return VThreadIoHandler::new;
                }
            });

    private static final Availability AVAILABILITY = VirtualThreads.unavailabilityCause() == null
            ? Availability.available() : Availability.unavailable(VirtualThreads.unavailabilityCause());

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
        return 5;
    }

    @Override
    public Availability availability() {
        return AVAILABILITY;
    }

    /** @throws io.conduit.transport.UnavailableTransportException on a JVM older than 21 */
    @Override
    public Transport transport() {
        AVAILABILITY.ensureAvailability(NAME);
        return TRANSPORT;
    }

    @Override
    public String toString() {
        return "TransportProvider[nio-vthread, ranking 5, " + AVAILABILITY + "]";
    }
}
