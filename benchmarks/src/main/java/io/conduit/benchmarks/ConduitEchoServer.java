package io.conduit.benchmarks;

import io.conduit.channel.Channel;
import io.conduit.channel.ChannelConfig;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.ChannelInitializer;
import io.conduit.channel.ChannelOption;
import io.conduit.bootstrap.ServerBootstrap;
import io.conduit.concurrent.EventExecutors;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.handler.codec.LengthFieldBasedFrameDecoder;
import io.conduit.handler.codec.LengthFieldPrepender;
import io.conduit.handler.ssl.TlsContext;
import io.conduit.transport.Transport;
import io.conduit.transport.Transports;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The Conduit side: an echo server on the named transport ({@code epoll} or {@code nio}, looked up with
 * {@link Transports#get}), {@code TCP_NODELAY} on accepted channels, a backlog of 4096, the default (pooled)
 * allocator. Conduit never uses {@code sun.misc.Unsafe}. With {@link EchoServer.Pipeline#FRAMED} the handler bundle's
 * length-field decoder and prepender sit before the echo; with {@link EchoServer.Pipeline#TLS} its
 * {@code TlsHandler} (TLS 1.3, JDK {@code SSLEngine}).
 */
public final class ConduitEchoServer implements EchoServer.Implementation {

    /**
     * {@code -Dbench.conduit.backPressure=false} turns the auto-read back-pressure off (a diagnostic: the echo is
     * then exactly Netty's idiomatic handler). Default {@code true}.
     */
    static final boolean BACK_PRESSURE = Boolean.parseBoolean(System.getProperty("bench.conduit.backPressure", "true"));
    /**
     * {@code -Dbench.conduit.sendZcThreshold=N} sets {@link ChannelOption#SEND_ZC_THRESHOLD} on accepted connections
     * where the transport has it (io_uring). Default 0: off.
     */
    static final int SEND_ZC_THRESHOLD = Integer.getInteger("bench.conduit.sendZcThreshold", 0);

    private final String transportName;
    private final EchoServer.Pipeline pipeline;
    private final AtomicInteger active = new AtomicInteger();
    private EventLoopGroup group;  // written once by start, before any other call
    private Channel listener;      // written once by start, before any other call
    private Transport transport;   // written once by start, before any other call

    /** @param transportName {@code epoll} or {@code nio} */
    public ConduitEchoServer(String transportName) {
        this(transportName, EchoServer.Pipeline.PLAIN);
    }

    /**
     * @param transportName {@code epoll} or {@code nio}
     * @param pipeline      what sits before the echo handler ({@code TLS_OPENSSL} is Netty's only)
     */
    public ConduitEchoServer(String transportName, EchoServer.Pipeline pipeline) {
        if (pipeline == EchoServer.Pipeline.TLS_OPENSSL) {
            throw new IllegalArgumentException("Conduit's TLS is the JDK's SSLEngine: no OpenSSL pipeline");
        }
        this.transportName = transportName;
        this.pipeline = pipeline;
    }

    /**
     * Echoes with back-pressure that costs nothing while the peer keeps up: write every message, flush once per
     * read operation, and only when that flush could not drain the outbound buffer below its high water mark
     * (the channel is then not writable) stop reading; resume when the channel becomes writable again. Auto-read
     * is therefore never touched on the fast path nor on every writability change. Sharable: its only state is
     * the shared connection counter.
     */
    @ChannelHandler.Sharable
    static final class Echo implements ChannelHandler {
        private final AtomicInteger active;
        private final boolean backPressure;

        Echo(AtomicInteger active, boolean backPressure) {
            this.active = active;
            this.backPressure = backPressure;
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
            Channel channel = ctx.channel();
            if (backPressure && !channel.isWritable()) {
                // The flush left more than the high water mark queued: the peer is slower than we read.
                channel.config().setAutoRead(false);
            }
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            Channel channel = ctx.channel();
            if (channel.isWritable()) {
                ChannelConfig config = channel.config();
                if (!config.isAutoRead()) {
                    config.setAutoRead(true);
                }
            }
            ctx.fireChannelWritabilityChanged();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }

    @Override
    public int start(int threads) throws Exception {
        transport = Transports.get(transportName);
        Echo echo = new Echo(active, BACK_PRESSURE);
        ChannelHandler child;
        switch (pipeline) {
            case FRAMED: {
                LengthFieldPrepender prepender = new LengthFieldPrepender(4); // sharable
                child = new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new LengthFieldBasedFrameDecoder(EchoServer.MAX_FRAME_BYTES, 0, 4, 0, 4),
                                prepender, echo);
                    }
                };
                break;
            }
            case TLS: {
                TlsContext tls = TlsContext.forServer(EchoServer.tlsKeyStore(), EchoServer.tlsPassword())
                        .protocols("TLSv1.3").build();
                child = new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(tls.newServerHandler(), echo);
                    }
                };
                break;
            }
            default:
                child = echo;
        }
        group = transport.newEventLoopGroup(threads, EventExecutors.newThreadFactory(EchoServer.IO_THREAD_PREFIX));
        ServerBootstrap bootstrap = new ServerBootstrap().transport(transport).group(group)
                .option(ChannelOption.SO_BACKLOG, 4096)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(child);
        if (SEND_ZC_THRESHOLD > 0 && transport.supports(ChannelOption.SEND_ZC_THRESHOLD)) {
            bootstrap.childOption(ChannelOption.SEND_ZC_THRESHOLD, SEND_ZC_THRESHOLD);
        }
        listener = bootstrap.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).sync().getNow();
        return ((InetSocketAddress) listener.localAddress()).getPort();
    }

    @Override
    public int activeConnections() {
        return active.get();
    }

    @Override
    public long untrackedDirectMemoryBytes() {
        return 0; // the pooled allocator's chunks are ByteBuffer.allocateDirect: the JDK's direct pool counts them
    }

    @Override
    public boolean usesUnsafe() {
        return false;
    }

    @Override
    public String detail() {
        return "conduit " + transport.name() + " native=" + transport.isNative() + " backPressure=" + BACK_PRESSURE
                + (SEND_ZC_THRESHOLD > 0 ? " sendZcThreshold=" + SEND_ZC_THRESHOLD : "")
                + (pipeline == EchoServer.Pipeline.PLAIN ? "" : " pipeline=" + pipeline.name().toLowerCase(java.util.Locale.ROOT));
    }

    @Override
    public void close() throws Exception {
        listener.close().sync();
        group.close();
    }
}
