package io.conduit.gateway.internal.metrics;

import static io.conduit.gateway.internal.echo.EchoHandlerTest.bytes;
import static io.conduit.gateway.internal.echo.EchoHandlerTest.text;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetSocketAddress;

import io.conduit.buffer.Buffer;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.DatagramPacket;
import io.conduit.channel.embedded.EmbeddedChannel;
import io.conduit.gateway.internal.echo.EchoHandler;
import org.junit.jupiter.api.Test;

class TrafficHandlerTest {

    @Test
    void aClientConnectionCountsWhileOpenAndItsBytesEachWay() {
        EndpointCounters counters = new EndpointCounters();
        EmbeddedChannel ch = new EmbeddedChannel(TrafficHandler.client(counters), new EchoHandler());
        assertEquals(1, counters.snapshot().connectionsOpen());
        ch.writeInbound(bytes("hello "), bytes("world"));
        assertEquals("hello ", text(ch.readOutbound()));
        assertEquals("world", text(ch.readOutbound()));
        EndpointCounters.Snapshot s = counters.snapshot();
        assertEquals(11, s.clientReceivedBytes());
        assertEquals(11, s.clientSentBytes());
        assertEquals(0, s.upstreamSentBytes());
        ch.close();
        ch.runPendingTasks();
        s = counters.snapshot();
        assertEquals(0, s.connectionsOpen());
        assertEquals(1, s.connectionsTotal());
        ch.finishAndReleaseAll();
        assertEquals(1, counters.snapshot().connectionsTotal(), "counted once, however it ends");
    }

    @Test
    void anUpstreamConnectionCountsItsBytesButNoConnection() {
        EndpointCounters counters = new EndpointCounters();
        EmbeddedChannel ch = new EmbeddedChannel(TrafficHandler.upstream(counters), new ChannelHandler() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ((Buffer) msg).close(); // the relay writes it to the client instead
            }
        });
        ch.writeInbound(bytes("+PONG\r\n"));
        ch.writeOutbound(bytes("PING\r\n"), bytes("PING\r\n"));
        ch.releaseOutbound();
        EndpointCounters.Snapshot s = counters.snapshot();
        assertEquals(7, s.upstreamReceivedBytes());
        assertEquals(12, s.upstreamSentBytes());
        assertEquals(0, s.connectionsTotal());
        assertEquals(0, s.clientReceivedBytes());
        ch.finishAndReleaseAll();
    }

    @Test
    void datagramsAreCountedWithTheirPayloads() {
        EndpointCounters counters = new EndpointCounters();
        EmbeddedChannel ch = new EmbeddedChannel(new DatagramTrafficHandler(counters), new EchoHandler());
        InetSocketAddress client = new InetSocketAddress("127.0.0.1", 40000);
        InetSocketAddress local = new InetSocketAddress("127.0.0.1", 7007);
        ch.writeInbound(new DatagramPacket(bytes("ping"), local, client, false),
                new DatagramPacket(bytes(""), local, client, false));
        ch.releaseOutbound();
        EndpointCounters.Snapshot s = counters.snapshot();
        assertEquals(2, s.clientReceivedDatagrams());
        assertEquals(2, s.clientSentDatagrams());
        assertEquals(4, s.clientReceivedBytes());
        assertEquals(4, s.clientSentBytes());
        assertEquals(0, s.connectionsTotal());
        ch.finishAndReleaseAll();
    }
}
