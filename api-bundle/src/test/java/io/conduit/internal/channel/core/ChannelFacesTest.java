package io.conduit.internal.channel.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.buffer.Buffer;
import io.conduit.buffer.BufferAllocator;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.DatagramChannel;
import io.conduit.channel.DomainDatagramChannel;
import io.conduit.channel.DomainSocketChannel;
import io.conduit.channel.DuplexChannel;
import io.conduit.channel.ServerChannel;
import io.conduit.channel.SocketChannel;
import io.conduit.channel.ZeroCopyForwarding;
import io.conduit.concurrent.Future;
import io.conduit.internal.channel.access.CoreChannel;
import io.conduit.internal.channel.core.CancelledOutboundOperationTest.ConnectingDatagramSocket;
import io.conduit.internal.channel.core.ChannelCoreTest.ScriptedSocket;
import io.conduit.transport.ChannelType;
import io.conduit.transport.spi.IdleIoHandler;
import io.conduit.transport.spi.IoEventLoopGroup;
import io.conduit.transport.spi.IoServerSocket;
import io.conduit.transport.spi.core.IoChannels;

import java.lang.reflect.Proxy;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The channels {@link IoChannels} makes: each kind's face offers its own operations and no other kind's, every one
 * is reachable as a {@link CoreChannel}, and a listener refuses writes.
 */
class ChannelFacesTest {

    private final IoEventLoopGroup group = new IoEventLoopGroup(1, null, IdleIoHandler::new);

    @AfterEach
    void tearDown() throws Exception {
        group.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
    }

    /**
     * A listener with no connection queued, open until closed; every other call does nothing, answers {@code null},
     * or {@code false} (options).
     */
    private static IoServerSocket idleListener() {
        boolean[] open = {true};
        return (IoServerSocket) Proxy.newProxyInstance(IoServerSocket.class.getClassLoader(),
                new Class<?>[] {IoServerSocket.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "isOpen" -> open[0];
                    case "close" -> {
                        open[0] = false;
                        yield null;
                    }
                    case "localAddress" -> new InetSocketAddress(1);
                    case "setOption", "supportsOption" -> false;
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    case "toString" -> "idle listener";
                    default -> null;
                });
    }

    @Test
    void eachFaceOffersOnlyItsKindsOperations() {
        Channel tcp = IoChannels.socketChannel("faces", new ScriptedSocket(), null);
        Channel unix = IoChannels.domainSocketChannel("faces", new ScriptedSocket(), null);
        Channel listener = IoChannels.serverChannel("faces", ChannelType.TCP, idleListener(), null);
        Channel udp = IoChannels.datagramChannel("faces", new ConnectingDatagramSocket(), null);
        Channel unixDatagram = IoChannels.domainDatagramChannel("faces", new ConnectingDatagramSocket(), null);
        try {
            assertInstanceOf(SocketChannel.class, tcp);
            assertInstanceOf(DomainSocketChannel.class, unix);
            for (Channel stream : List.of(tcp, unix)) {
                assertInstanceOf(DuplexChannel.class, stream, "shutdownInput/shutdownOutput on " + stream);
                assertInstanceOf(ZeroCopyForwarding.class, stream, "forwardTo on " + stream);
                assertFalse(stream instanceof DatagramChannel, "no joinGroup on " + stream);
            }
            assertInstanceOf(ServerChannel.class, listener);
            assertInstanceOf(DatagramChannel.class, udp);
            assertInstanceOf(DomainDatagramChannel.class, unixDatagram);
            for (Channel other : List.of(listener, udp, unixDatagram)) {
                assertFalse(other instanceof DuplexChannel, "no shutdownInput/shutdownOutput on " + other);
                assertFalse(other instanceof ZeroCopyForwarding, "no forwardTo on " + other);
            }
            assertFalse(listener instanceof DatagramChannel, "no joinGroup on a listener");
            assertFalse(unixDatagram instanceof DatagramChannel, "no joinGroup on a Unix-domain datagram channel");
            for (Channel c : List.of(tcp, unix, listener, udp, unixDatagram)) {
                CoreChannel core = assertInstanceOf(CoreChannel.class, c, "bootstraps reach " + c);
                assertEquals(c == unix || c == unixDatagram, core.unixDomain(), c.toString());
            }
        } finally {
            for (Channel c : List.of(tcp, unix, listener, udp, unixDatagram)) {
                ((CoreChannel) c).closeUnregistered();
            }
        }
    }

    @Test
    void aWriteToAListenerFailsAtOnceAndReleasesTheMessage() throws Exception {
        Channel listener = IoChannels.serverChannel("faces", ChannelType.TCP, idleListener(), group.next());
        listener.config().setOption(ChannelOption.ALLOCATOR, BufferAllocator.unpooled());
        ((CoreChannel) listener).register().sync();
        listener.bind(new InetSocketAddress(1)).sync();
        Buffer message = listener.alloc().buffer(4).writeInt(42);
        Future<Void> write = listener.writeAndFlush(message);
        assertTrue(write.await(5, TimeUnit.SECONDS));
        Throwable cause = write.cause();
        assertInstanceOf(IllegalArgumentException.class, cause);
        assertTrue(cause.getMessage().contains("write nothing to a server channel"), cause.getMessage());
        assertEquals(0, message.refCnt(), "the refused message is released");
        assertTrue(listener.isOpen(), "a refused write leaves the listener open");
        listener.close().sync();
    }
}
