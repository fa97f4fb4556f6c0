package io.conduit.testsuite;

import io.conduit.buffer.Buffer;
import io.conduit.buffer.BufferHolder;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.DatagramPacket;
import io.conduit.channel.DomainDatagramPacket;

import java.io.ByteArrayOutputStream;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Predicate;

/**
 * A handler that records every inbound event as a short string ({@code "active"}, {@code "read"},
 * {@code "readComplete"}, {@code "user:InputShutdownEvent"}, {@code "writable:false"}, {@code "exception:…"},
 * {@code "inactive"}, …), keeps the bytes read, and completes futures on activity changes. Consumes (and
 * releases) what it reads. Thread-safe to inspect from the test thread.
 */
public class Recorder implements ChannelHandler {

    private final List<String> events = new ArrayList<>();               // guarded by this
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream(); // guarded by this
    /** Datagrams read, content copied. */
    public final LinkedBlockingQueue<ReceivedDatagram> datagrams = new LinkedBlockingQueue<>();
    public final CompletableFuture<Channel> active = new CompletableFuture<>();
    public final CompletableFuture<Channel> inactive = new CompletableFuture<>();
    public final CompletableFuture<Throwable> firstException = new CompletableFuture<>();
    private volatile Channel channel;

    /** Unix-domain datagrams read, content copied. */
    public final LinkedBlockingQueue<ReceivedDomainDatagram> domainDatagrams = new LinkedBlockingQueue<>();

    /** A datagram as read: its bytes and sender. */
    public record ReceivedDatagram(byte[] content, java.net.InetSocketAddress sender) {
    }

    /** A Unix-domain datagram as read: its bytes, addresses and whether it was cut to the receive buffer. */
    public record ReceivedDomainDatagram(byte[] content, SocketAddress sender, SocketAddress recipient,
            boolean truncated) {
    }

    public Channel channel() {
        return channel;
    }

    protected synchronized void record(String event) {
        events.add(event);
    }

    /** @return a snapshot of the events so far */
    public synchronized List<String> events() {
        return new ArrayList<>(events);
    }

    /** @return how many recorded events match */
    public synchronized long count(Predicate<String> which) {
        return events.stream().filter(which).count();
    }

    public synchronized long count(String event) {
        return count(event::equals);
    }

    /** @return a copy of every byte read so far */
    public synchronized byte[] bytes() {
        return bytes.toByteArray();
    }

    public synchronized int byteCount() {
        return bytes.size();
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        channel = ctx.channel();
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        record("active");
        active.complete(ctx.channel());
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        record("inactive");
        inactive.complete(ctx.channel());
        ctx.fireChannelInactive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof Buffer b) {
            synchronized (this) {
                events.add("read");
                byte[] a = new byte[b.readableBytes()];
                b.readBytes(a);
                bytes.write(a, 0, a.length);
            }
            b.release();
            onRead(ctx);
        } else if (msg instanceof DatagramPacket p) {
            record("datagram");
            byte[] a = copyAndClose(p);
            datagrams.add(new ReceivedDatagram(a, p.sender()));
        } else if (msg instanceof DomainDatagramPacket p) {
            record("datagram");
            byte[] a = copyAndClose(p);
            domainDatagrams.add(new ReceivedDomainDatagram(a, p.sender(), p.recipient(), p.truncated()));
        } else {
            record("message:" + msg.getClass().getSimpleName());
            ctx.fireChannelRead(msg);
        }
    }

    /** @return a copy of the packet's content, after releasing the packet */
    private static byte[] copyAndClose(BufferHolder p) {
        Buffer c = p.content();
        byte[] a = new byte[c.readableBytes()];
        c.getBytes(c.readerIndex(), a, 0, a.length);
        p.close();
        return a;
    }

    /** Called after bytes were recorded; default nothing. */
    protected void onRead(ChannelHandlerContext ctx) {
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        record("readComplete");
        ctx.fireChannelReadComplete();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        record("user:" + event);
        ctx.fireUserEventTriggered(event);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        record("writable:" + ctx.channel().isWritable());
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        record("exception:" + cause.getClass().getSimpleName());
        firstException.complete(cause);
    }
}
