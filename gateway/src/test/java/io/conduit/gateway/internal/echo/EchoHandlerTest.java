package io.conduit.gateway.internal.echo;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

import io.conduit.buffer.Buffer;
import io.conduit.buffer.BufferAllocator;
import io.conduit.channel.DatagramPacket;
import io.conduit.channel.embedded.EmbeddedChannel;
import io.conduit.gateway.internal.TestDuplexChannel;
import org.junit.jupiter.api.Test;

public class EchoHandlerTest {

    public static Buffer bytes(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        return BufferAllocator.unpooled().buffer(b.length).writeBytes(b);
    }

    public static String text(Buffer b) {
        try {
            return new String(b.toByteArray(), StandardCharsets.UTF_8);
        } finally {
            b.close();
        }
    }

    @Test
    void streamBytesComeBackInOrder() {
        TestDuplexChannel ch = new TestDuplexChannel(new EchoHandler());
        ch.writeInbound(bytes("hello "), bytes("world"));
        assertEquals("hello ", text(ch.readOutbound()));
        assertEquals("world", text(ch.readOutbound()));
        assertNull(ch.readInbound());
        ch.finishAndReleaseAll();
    }

    @Test
    void endOfStreamFlushesShutsTheOutputAndCloses() {
        TestDuplexChannel ch = new TestDuplexChannel(new EchoHandler());
        ch.writeInbound(bytes("last words"));
        ch.receiveEof();
        assertTrue(ch.isOutputShutdown());
        assertEquals(1, ch.flushedAtOutputShutdown, "echo flushed before SHUT_WR");
        assertFalse(ch.isOpen(), "both directions done: closed");
        assertEquals("last words", text(ch.readOutbound()));
    }

    @Test
    void unwritableChannelStopsReadingUntilWritableAgain() {
        TestDuplexChannel ch = new TestDuplexChannel(new EchoHandler());
        ch.setWritable(false);
        ch.writeInbound(bytes("x"));
        assertFalse(ch.config().isAutoRead());
        ch.setWritable(true); // runs the pending resume task
        assertTrue(ch.config().isAutoRead());
        ch.finishAndReleaseAll();
    }

    @Test
    void datagramsGoBackToTheirSenderIncludingEmptyOnes() {
        EmbeddedChannel ch = new EmbeddedChannel(new EchoHandler());
        InetSocketAddress client = new InetSocketAddress("127.0.0.1", 40000);
        InetSocketAddress local = new InetSocketAddress("127.0.0.1", 7007);
        ch.writeInbound(new DatagramPacket(bytes("ping"), local, client, false),
                new DatagramPacket(bytes(""), local, client, false));
        DatagramPacket reply = ch.readOutbound();
        assertEquals(client, reply.recipient());
        assertArrayEquals("ping".getBytes(StandardCharsets.UTF_8), reply.content().toByteArray());
        reply.close();
        DatagramPacket empty = ch.readOutbound();
        assertEquals(0, empty.content().readableBytes());
        empty.close();
        ch.pipeline().fireExceptionCaught(new java.net.PortUnreachableException("icmp"));
        assertTrue(ch.isOpen(), "a datagram listener survives errors");
        ch.finishAndReleaseAll();
    }
}
