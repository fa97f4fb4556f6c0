package io.conduit.channel;

import java.net.SocketAddress;

import io.conduit.buffer.BufferAllocator;
import io.conduit.concurrent.EventLoop;
import io.conduit.concurrent.Future;
import io.conduit.concurrent.Promise;
import org.osgi.annotation.versioning.ProviderType;

/**
 * A connection or listener of some transport: a socket, a datagram endpoint, a Unix-domain socket.
 *
 * <p>A channel belongs to one {@link EventLoop} for its whole life; all its I/O and pipeline events run
 * there. Outbound operations ({@link ChannelOutboundInvoker}) start at the tail of the {@link #pipeline()}
 * and may be called from any thread.
 *
 * <p>Life cycle: created → registered → active (bound/connected) → inactive → closed. {@link #closeFuture()}
 * succeeds once the channel is closed; pending write promises have failed by then with a
 * {@link ChannelClosedException} that names the cause of the close.
 */
@ProviderType
public interface Channel extends ChannelOutboundInvoker, Comparable<Channel> {

    /** @return a short identifier, unique within this JVM (e.g. {@code "0x1f2e3d4c"}) */
    String id();

    /** @return the name of the transport that made this channel, e.g. {@code "epoll"} or {@code "nio"} */
    String transportName();

    EventLoop eventLoop();

    /** @return the server channel that accepted this channel, or {@code null} */
    Channel parent();

    ChannelConfig config();

    ChannelPipeline pipeline();

    /** @return {@code true} until the channel is closed */
    boolean isOpen();

    /** @return {@code true} while registered with its event loop */
    boolean isRegistered();

    /** @return {@code true} when open and bound/connected */
    boolean isActive();

    /** @return the bound local address, or {@code null} when not bound */
    SocketAddress localAddress();

    /** @return the connected remote address, or {@code null} when not connected */
    SocketAddress remoteAddress();

    /** @return a future that succeeds when the channel is closed; it never fails */
    Future<Void> closeFuture();

    /**
     * @return {@code false} while the bytes pending in the outbound buffer exceed the high water mark, until
     *         they fall below the low water mark ({@link ChannelOption#WRITE_BUFFER_WATER_MARK})
     */
    boolean isWritable();

    /** @return bytes that can be queued before {@link #isWritable()} turns {@code false}; 0 when not writable */
    long bytesBeforeUnwritable();

    /** @return bytes that must be flushed before {@link #isWritable()} turns {@code true}; 0 when writable */
    long bytesBeforeWritable();

    /** @return the allocator of {@link #config()} */
    default BufferAllocator alloc() {
        return config().getAllocator();
    }

    // Outbound operations start at the tail of the pipeline: implementations inherit these delegations.

    @Override
    default Future<Void> bind(SocketAddress localAddress) {
        return pipeline().bind(localAddress);
    }

    @Override
    default Future<Void> connect(SocketAddress remoteAddress) {
        return pipeline().connect(remoteAddress);
    }

    @Override
    default Future<Void> connect(SocketAddress remoteAddress, SocketAddress localAddress) {
        return pipeline().connect(remoteAddress, localAddress);
    }

    @Override
    default Future<Void> disconnect() {
        return pipeline().disconnect();
    }

    @Override
    default Future<Void> close() {
        return pipeline().close();
    }

    @Override
    default Future<Void> bind(SocketAddress localAddress, Promise<Void> promise) {
        return pipeline().bind(localAddress, promise);
    }

    @Override
    default Future<Void> connect(SocketAddress remoteAddress, SocketAddress localAddress, Promise<Void> promise) {
        return pipeline().connect(remoteAddress, localAddress, promise);
    }

    @Override
    default Future<Void> disconnect(Promise<Void> promise) {
        return pipeline().disconnect(promise);
    }

    @Override
    default Future<Void> close(Promise<Void> promise) {
        return pipeline().close(promise);
    }

    @Override
    default Channel read() {
        pipeline().read();
        return this;
    }

    @Override
    default Future<Void> write(Object msg) {
        return pipeline().write(msg);
    }

    @Override
    default Future<Void> write(Object msg, Promise<Void> promise) {
        return pipeline().write(msg, promise);
    }

    @Override
    default Channel flush() {
        pipeline().flush();
        return this;
    }

    @Override
    default Future<Void> writeAndFlush(Object msg) {
        return pipeline().writeAndFlush(msg);
    }

    @Override
    default Future<Void> writeAndFlush(Object msg, Promise<Void> promise) {
        return pipeline().writeAndFlush(msg, promise);
    }

    @Override
    default int compareTo(Channel other) {
        return id().compareTo(other.id());
    }
}
