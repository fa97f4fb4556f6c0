package io.conduit.handler.ssl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;

import org.junit.jupiter.api.Test;

/** The server name read from a real JDK ClientHello, from every prefix of it, and from damaged copies. */
class ClientHelloTest {

    private static byte[] clientHello(String host) throws Exception {
        SSLContext ssl = SSLContext.getInstance("TLS");
        ssl.init(null, null, null);
        SSLEngine e = ssl.createSSLEngine(host, 443);
        e.setUseClientMode(true);
        SSLParameters p = e.getSSLParameters();
        p.setServerNames(host == null ? java.util.List.of() : java.util.List.of(new javax.net.ssl.SNIHostName(host)));
        e.setSSLParameters(p);
        ByteBuffer out = ByteBuffer.allocate(e.getSession().getPacketBufferSize());
        e.wrap(ByteBuffer.allocate(0), out);
        out.flip();
        byte[] b = new byte[out.remaining()];
        out.get(b);
        return b;
    }

    @Test
    void theNameOfAWholeClientHelloAndNeedMoreBeforeIt() throws Exception {
        byte[] hello = clientHello("Broker.Example");
        assertEquals("broker.example", ClientHello.serverName(ByteBuffer.wrap(hello)));
        for (int n = 0; n < hello.length; n++) {
            assertSame(ClientHello.NEED_MORE, ClientHello.serverName(ByteBuffer.wrap(hello, 0, n)), "prefix of " + n);
        }
        ByteBuffer offset = ByteBuffer.allocate(hello.length + 7);
        offset.position(7);
        offset.put(hello).position(7);
        assertEquals("broker.example", ClientHello.serverName(offset), "read from the buffer's position");
        assertEquals(7, offset.position(), "not consumed");
    }

    @Test
    void noNameWhenThereIsNoneOrTheBytesAreNoClientHello() throws Exception {
        assertNull(ClientHello.serverName(ByteBuffer.wrap(clientHello(null))));
        assertNull(ClientHello.serverName(ByteBuffer.wrap("GET / HTTP/1.1\r\n\r\n".getBytes())));
        byte[] hello = clientHello("a.example");
        Random random = new Random(5);
        for (int i = 0; i < 20_000; i++) {
            byte[] damaged = Arrays.copyOf(hello, hello.length);
            for (int k = 0; k < 1 + random.nextInt(4); k++) {
                damaged[5 + random.nextInt(damaged.length - 5)] = (byte) random.nextInt(256);
            }
            ClientHello.serverName(ByteBuffer.wrap(damaged));   // any answer, never an exception
        }
    }
}
