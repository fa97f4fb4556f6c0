package io.conduit.internal.nio;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;

import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelOption;
import io.conduit.bootstrap.ServerBootstrap;
import io.conduit.concurrent.EventLoop;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.concurrent.Future;
import io.conduit.transport.ChannelType;
import io.conduit.transport.spi.IoDatagramSocket;
import io.conduit.transport.spi.IoEvents;
import io.conduit.transport.spi.IoHandlerFactory;
import io.conduit.transport.spi.IoServerSocket;
import io.conduit.transport.spi.IoStreamSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A listener whose registration hits a transport whose classes are gone ({@link NoClassDefFoundError}, as when a
 * transport bundle is refreshed while a swap binds on it) fails its bind future and closes its socket at once.
 *
 * <p>The bug this guards against: registration caught only {@code IOException} and {@code RuntimeException}, so the
 * error escaped to the loop, the future never completed (a swap waited for its bind timeout) and the socket, opened
 * but never bound, stayed open: the unexplained socket descriptors {@code SwapTortureTest} saw left after a run.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RegisterOnVanishedTransportTest {

    /** A listener socket whose {@code register} fails as a refreshed bundle's class loader does. */
    private static final class GoneOnRegister implements IoServerSocket {
        private final NioServerSocket delegate;

        GoneOnRegister() throws IOException {
            delegate = new NioServerSocket(ServerSocketChannel.open(), false);
        }

        @Override
        public void register(EventLoop loop, IoEvents events) {
            throw new NoClassDefFoundError("io/conduit/test/EventArray");
        }

        @Override
        public void bind(SocketAddress localAddress, int backlog) throws IOException {
            delegate.bind(localAddress, backlog);
        }

        @Override
        public IoStreamSocket accept() throws IOException {
            return delegate.accept();
        }

        @Override
        public void deregister(Runnable whenReleased) {
            delegate.deregister(whenReleased);
        }

        @Override
        public void interestOps(int ops) {
            delegate.interestOps(ops);
        }

        @Override
        public boolean isOpen() {
            return delegate.isOpen();
        }

        @Override
        public void close() throws IOException {
            delegate.close();
        }

        @Override
        public SocketAddress localAddress() {
            return delegate.localAddress();
        }

        @Override
        public SocketAddress remoteAddress() {
            return delegate.remoteAddress();
        }

        @Override
        public <T> boolean setOption(ChannelOption<T> option, T value) throws IOException {
            return delegate.setOption(option, value);
        }

        @Override
        public <T> T getOption(ChannelOption<T> option) throws IOException {
            return delegate.getOption(option);
        }
    }

    @Test
    void aRegistrationThatHitsVanishedClassesFailsTheBindAndClosesTheSocket() throws Exception {
        GoneOnRegister[] made = new GoneOnRegister[1];
        NioTransport t = new NioTransport("nio-gone-on-register", EnumSet.of(ChannelType.TCP),
                new NioTransport.Sockets() {
                    @Override
                    public IoStreamSocket stream(java.net.ProtocolFamily family) {
                        throw new UnsupportedOperationException();
                    }

                    @Override
                    public IoServerSocket server(java.net.ProtocolFamily family) throws IOException {
                        made[0] = new GoneOnRegister();
                        return made[0];
                    }

                    @Override
                    public IoDatagramSocket datagram() {
                        throw new UnsupportedOperationException();
                    }

                    @Override
                    public IoHandlerFactory handlerFactory() {
                        return NioIoHandler::new;
                    }
                });
        EventLoopGroup group = t.newEventLoopGroup(1);
        try {
            Future<Channel> bound = new ServerBootstrap().transport(t).group(group)
                    .childHandler(new ChannelHandler() { }).bind(new InetSocketAddress("127.0.0.1", 0));
            assertTrue(bound.await(10, TimeUnit.SECONDS), "the bind future completes");
            assertInstanceOf(NoClassDefFoundError.class, bound.cause(), String.valueOf(bound.cause()));
            assertTrue(!made[0].isOpen(), "the listener's socket is closed");
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
        }
    }
}
