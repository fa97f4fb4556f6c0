package io.conduit.handler.logging;

import java.net.SocketAddress;
import java.util.Objects;

import io.conduit.buffer.Buffer;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.concurrent.Promise;

/**
 * Logs every event that passes it, inbound and outbound, then passes it on unchanged: one line per event through
 * a {@link System.Logger} (by default named after this class) at a chosen level, starting with the channel's id
 * and addresses. {@link Buffer}s are shown with their length and a hex dump of at most {@code maxDumpBytes}
 * bytes: 16 per line, an offset, the hex bytes and the printable ASCII characters.
 *
 * <p>Cost: when the level is not loggable each event costs one check. Sharable: it keeps no per-channel state;
 * add it where in the pipeline the events should be seen.
 */
@ChannelHandler.Sharable
public class LoggingHandler implements ChannelHandler {

    private final System.Logger logger;
    private final System.Logger.Level level;
    private final int maxDumpBytes;

    /** Logs at {@code DEBUG} on the logger named after this class, dumping up to 1024 bytes per buffer. */
    public LoggingHandler() {
        this(System.Logger.Level.DEBUG);
    }

    /** Logs at {@code level} on the logger named after this class, dumping up to 1024 bytes per buffer. */
    public LoggingHandler(System.Logger.Level level) {
        this(System.getLogger(LoggingHandler.class.getName()), level, 1024);
    }

    /**
     * @param logger where lines go
     * @param level the level of every line
     * @param maxDumpBytes the most bytes of one buffer shown in its hex dump; 0 for no dump
     * @throws IllegalArgumentException when {@code maxDumpBytes < 0}
     */
    public LoggingHandler(System.Logger logger, System.Logger.Level level, int maxDumpBytes) {
        this.logger = Objects.requireNonNull(logger, "logger");
        this.level = Objects.requireNonNull(level, "level");
        if (maxDumpBytes < 0) {
            throw new IllegalArgumentException("maxDumpBytes must be >= 0: " + maxDumpBytes);
        }
        this.maxDumpBytes = maxDumpBytes;
    }

    private boolean on() {
        return logger.isLoggable(level);
    }

    private void log(ChannelHandlerContext ctx, String event) {
        logger.log(level, prefix(ctx) + event);
    }

    private void log(ChannelHandlerContext ctx, String event, Object msg) {
        logger.log(level, prefix(ctx) + event + ": " + format(msg));
    }

    private static String prefix(ChannelHandlerContext ctx) {
        var ch = ctx.channel();
        SocketAddress local = ch.localAddress();
        SocketAddress remote = ch.remoteAddress();
        return "[" + ch.id() + (local != null ? ", L:" + local : "") + (remote != null ? " - R:" + remote : "")
                + "] ";
    }

    private String format(Object msg) {
        if (msg instanceof Buffer b) {
            int n = b.readableBytes();
            return n + "B" + (n == 0 || maxDumpBytes == 0 ? "" : System.lineSeparator()
                    + HexDump.dump(b, b.readerIndex(), Math.min(n, maxDumpBytes))
                    + (n > maxDumpBytes ? System.lineSeparator() + "… " + (n - maxDumpBytes) + " more bytes" : ""));
        }
        return String.valueOf(msg);
    }

    @Override
    public void channelRegistered(ChannelHandlerContext ctx) throws Exception {
        if (on()) {
            log(ctx, "REGISTERED");
        }
        ctx.fireChannelRegistered();
    }

    @Override
    public void channelUnregistered(ChannelHandlerContext ctx) throws Exception {
        if (on()) {
            log(ctx, "UNREGISTERED");
        }
        ctx.fireChannelUnregistered();
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        if (on()) {
            log(ctx, "ACTIVE");
        }
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (on()) {
            log(ctx, "INACTIVE");
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (on()) {
            log(ctx, "READ", msg);
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        if (on()) {
            log(ctx, "READ COMPLETE");
        }
        ctx.fireChannelReadComplete();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
        if (on()) {
            log(ctx, "USER EVENT", event);
        }
        ctx.fireUserEventTriggered(event);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        if (on()) {
            log(ctx, "WRITABILITY CHANGED", ctx.channel().isWritable() ? "writable" : "not writable");
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) throws Exception {
        if (on()) {
            logger.log(level, prefix(ctx) + "EXCEPTION: " + cause, cause);
        }
        ctx.fireExceptionCaught(cause);
    }

    @Override
    public void bind(ChannelHandlerContext ctx, SocketAddress localAddress, Promise<Void> promise) throws Exception {
        if (on()) {
            log(ctx, "BIND", localAddress);
        }
        ctx.bind(localAddress, promise);
    }

    @Override
    public void connect(ChannelHandlerContext ctx, SocketAddress remoteAddress, SocketAddress localAddress,
            Promise<Void> promise) throws Exception {
        if (on()) {
            log(ctx, "CONNECT", remoteAddress + (localAddress != null ? " from " + localAddress : ""));
        }
        ctx.connect(remoteAddress, localAddress, promise);
    }

    @Override
    public void disconnect(ChannelHandlerContext ctx, Promise<Void> promise) throws Exception {
        if (on()) {
            log(ctx, "DISCONNECT");
        }
        ctx.disconnect(promise);
    }

    @Override
    public void close(ChannelHandlerContext ctx, Promise<Void> promise) throws Exception {
        if (on()) {
            log(ctx, "CLOSE");
        }
        ctx.close(promise);
    }

    @Override
    public void read(ChannelHandlerContext ctx) throws Exception {
        if (on()) {
            log(ctx, "READ REQUEST");
        }
        ctx.read();
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, Promise<Void> promise) throws Exception {
        if (on()) {
            log(ctx, "WRITE", msg);
        }
        ctx.write(msg, promise);
    }

    @Override
    public void flush(ChannelHandlerContext ctx) throws Exception {
        if (on()) {
            log(ctx, "FLUSH");
        }
        ctx.flush();
    }
}
