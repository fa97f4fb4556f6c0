package io.conduit.internal.channel.core;

import io.conduit.buffer.Buffer;
import io.conduit.channel.DatagramPacket;
import io.conduit.concurrent.Future;
import io.conduit.internal.concurrent.DefaultPromise;
import io.conduit.transport.spi.IoDatagramSocket;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;

/**
 * The channel side of {@link IoDatagramSocket#connectAway} for {@code DatagramHandOver}: runs it on a UDP channel's
 * loop. Datagrams the socket had to take out of its queue first are fired into the channel's pipeline (as
 * {@link DatagramPacket}s from their senders, one {@code channelReadComplete} after them) before the future
 * completes, exactly as if the channel had read them; the others stay queued and the channel reads them as usual.
 */
final class DatagramConnectAway {

    private DatagramConnectAway() {
    }

    /**
     * @return {@code true} when the channel was steered away, {@code false} when its transport cannot do it (nothing
     *         changed); fails with the {@code connect(2)} error, or when the channel is closed or its loop stopped
     */
    static Future<Boolean> start(IoDatagramChannel channel, InetSocketAddress sink) {
        DefaultPromise<Boolean> result = new DefaultPromise<>(null);
        IoDatagramSocket socket = (IoDatagramSocket) channel.socket();
        try {
            channel.eventLoop().execute(() -> run(channel, socket, sink, result));
        } catch (RejectedExecutionException e) {
            result.tryFailure(new java.nio.channels.ClosedChannelException());
        }
        return result;
    }
    private static void run(IoDatagramChannel channel, IoDatagramSocket socket, SocketAddress sink,
            DefaultPromise<Boolean> result) {
        if (!channel.isOpen()) {
            result.tryFailure(new java.nio.channels.ClosedChannelException());
            return;
        }
        InetSocketAddress local = channel.localAddress();
        List<DatagramPacket> taken = new ArrayList<>();
        boolean done;
        try {
            done = socket.connectAway(sink, (data, sender, recipient, truncated) -> {
                Buffer content = channel.alloc().buffer(data.remaining());
                try {
                    content.writeBytes(data);
                } catch (RuntimeException | Error e) {
                    content.release();
                    throw e;
                }
                InetSocketAddress to = recipient instanceof InetSocketAddress r ? r : local;
                taken.add(new DatagramPacket(content, to, (InetSocketAddress) sender, truncated));
            });
        } catch (Throwable t) {
            taken.forEach(DatagramPacket::close);
            result.tryFailure(t);
            return;
        }
        for (DatagramPacket p : taken) {
            channel.pipeline().fireChannelRead(p);
        }
        if (!taken.isEmpty()) {
            channel.pipeline().fireChannelReadComplete();
        }
        result.trySuccess(done);
    }
}
