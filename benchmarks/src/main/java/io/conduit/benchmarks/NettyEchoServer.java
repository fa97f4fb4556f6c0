package io.conduit.benchmarks;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.LengthFieldPrepender;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.internal.PlatformDependent;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.io.InputStream;
import java.nio.file.Files;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The Netty 4.2 peer: the idiomatic echo handler ({@code ctx.write} per read, {@code ctx.flush} on read complete),
 * stock options apart from {@code TCP_NODELAY} on accepted channels and a backlog of 4096, Netty's default
 * allocator. Whether Netty uses {@code sun.misc.Unsafe} is decided by the JVM flags of the run. With
 * {@link EchoServer.Pipeline#FRAMED} Netty's {@code LengthFieldBasedFrameDecoder} and {@code LengthFieldPrepender} sit
 * before the echo; with {@code TLS} its {@code SslHandler} on the JDK provider (TLS 1.3), with {@code TLS_OPENSSL}
 * on the OpenSSL provider (netty-tcnative-boringssl-static).
 */
public final class NettyEchoServer implements EchoServer.Implementation {

    /** {@code epoll}, {@code iouring} or {@code nio} */
    private final String transport;
    private final EchoServer.Pipeline pipeline;
    private final AtomicInteger active = new AtomicInteger();
    private EventLoopGroup group;  // written once by start, before any other call
    private Channel listener;      // written once by start, before any other call

    /** @param transport {@code epoll}, {@code iouring} or {@code nio} */
    public NettyEchoServer(String transport) {
        this(transport, EchoServer.Pipeline.PLAIN);
    }

    /**
     * @param transport {@code epoll}, {@code iouring} or {@code nio}
     * @param pipeline  what sits before the echo handler
     */
    public NettyEchoServer(String transport, EchoServer.Pipeline pipeline) {
        this.transport = transport;
        this.pipeline = pipeline;
    }

    /** A TLS 1.3 server context from the run's key store, on the JDK or the OpenSSL provider. */
    private static SslContext sslContext(SslProvider provider) throws Exception {
        if (provider == SslProvider.OPENSSL) {
            OpenSsl.ensureAvailability();
        }
        KeyStore store = KeyStore.getInstance("PKCS12");
        char[] password = EchoServer.tlsPassword();
        try (InputStream in = Files.newInputStream(EchoServer.tlsKeyStore())) {
            store.load(in, password);
        }
        String alias = store.aliases().nextElement();
        PrivateKey key = (PrivateKey) store.getKey(alias, password);
        X509Certificate certificate = (X509Certificate) store.getCertificate(alias);
        return SslContextBuilder.forServer(key, certificate).sslProvider(provider).protocols("TLSv1.3").build();
    }

    /** Counts active channels and echoes. Stateless apart from the shared counter, so sharable. */
    @ChannelHandler.Sharable
    static final class Echo extends ChannelInboundHandlerAdapter {
        private final AtomicInteger active;

        Echo(AtomicInteger active) {
            this.active = active;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            active.incrementAndGet();
            ctx.fireChannelActive();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            active.decrementAndGet();
            ctx.fireChannelInactive();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.write(msg);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }

    @Override
    public int start(int threads) throws Exception {
        IoHandlerFactory factory;
        Class<? extends ServerChannel> channelType;
        if (transport.equals("epoll")) {
            Epoll.ensureAvailability();
            factory = EpollIoHandler.newFactory();
            channelType = EpollServerSocketChannel.class;
        } else if (transport.equals("iouring")) {
            io.netty.channel.uring.IoUring.ensureAvailability();
            factory = io.netty.channel.uring.IoUringIoHandler.newFactory();
            channelType = io.netty.channel.uring.IoUringServerSocketChannel.class;
        } else {
            factory = NioIoHandler.newFactory();
            channelType = NioServerSocketChannel.class;
        }
        Echo echo = new Echo(active);
        ChannelHandler child;
        switch (pipeline) {
            case FRAMED: {
                LengthFieldPrepender prepender = new LengthFieldPrepender(4); // sharable
                child = new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new LengthFieldBasedFrameDecoder(EchoServer.MAX_FRAME_BYTES, 0, 4, 0, 4),
                                prepender, echo);
                    }
                };
                break;
            }
            case TLS:
            case TLS_OPENSSL: {
                SslContext ssl = sslContext(pipeline == EchoServer.Pipeline.TLS ? SslProvider.JDK : SslProvider.OPENSSL);
                child = new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(ssl.newHandler(ch.alloc()), echo);
                    }
                };
                break;
            }
            default:
                child = echo;
        }
        group = new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory(EchoServer.IO_THREAD_PREFIX), factory);
        listener = new ServerBootstrap().group(group).channel(channelType)
                .option(ChannelOption.SO_BACKLOG, 4096)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(child)
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().channel();
        return ((InetSocketAddress) listener.localAddress()).getPort();
    }

    @Override
    public int activeConnections() {
        return active.get();
    }

    @Override
    public long untrackedDirectMemoryBytes() {
        long used = PlatformDependent.usedDirectMemory();
        return Math.max(used, 0);
    }

    @Override
    public boolean usesUnsafe() {
        return PlatformDependent.hasUnsafe();
    }

    @Override
    public String detail() {
        return "netty " + transport + " directBufferPreferred=" + PlatformDependent.directBufferPreferred()
                + " noCleaner=" + PlatformDependent.useDirectBufferNoCleaner()
                + (pipeline == EchoServer.Pipeline.PLAIN ? "" : " pipeline=" + pipeline.name().toLowerCase(java.util.Locale.ROOT))
                + (pipeline == EchoServer.Pipeline.TLS_OPENSSL ? " " + OpenSsl.versionString() : "");
    }

    @Override
    public void close() throws Exception {
        listener.close().sync();
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).sync();
    }
}
