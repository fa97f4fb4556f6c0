package io.conduit.testsuite;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.conduit.buffer.Buffer;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelOption;
import io.conduit.transport.ChannelType;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Echo over TCP and Unix-domain stream sockets: every byte comes back exactly, for sizes from 1 byte to 16 MiB
 * (the largest sizes only with the pooled allocator; the one-byte-reads allocator echoes up to 64 KiB), and with
 * many connections at once.
 */
public abstract class StreamEchoTest extends AbstractTransportTest {

    /** @return the payload sizes for {@code combo}, in bytes */
    protected static int[] sizes(Combo combo) {
        return switch (combo.allocator()) {
            case POOLED -> new int[] {1, 1024, 65_536, 1 << 20, 16 << 20};
            case UNPOOLED -> new int[] {1, 1024, 65_536, 1 << 20};
            case ONE_BYTE_READS -> new int[] {1, 1024, 65_536};
        };
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void echoesEveryByteOverTcp(Combo combo) {
        echo(combo, ChannelType.TCP);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void echoesEveryByteOverUnixDomainSockets(Combo combo) {
        echo(combo, ChannelType.UNIX_STREAM);
    }

    private void echo(Combo combo, ChannelType type) {
        if (!runnable(combo)) {
            return;
        }
        Channel server = bindServer(combo, type, serverAddress(type), new EchoHandler(), null);
        try {
            for (int size : sizes(combo)) {
                Recorder client = new Recorder();
                Channel ch = connect(combo, type, server.localAddress(), client, null);
                try {
                    byte[] data = randomBytes(size, size);
                    Buffer buf = ch.alloc().buffer(size);
                    buf.writeBytes(data);
                    await(ch.writeAndFlush(buf));
                    eventually(size + " bytes echoed (got " + client.byteCount() + ")", () -> client.byteCount() >= size);
                    assertArrayEquals(data, client.bytes(), "echo of " + size + " bytes");
                } finally {
                    closeAll(ch);
                }
            }
        } finally {
            closeAll(server);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void echoesOnManyConnectionsAtOnce(Combo combo) {
        if (!runnable(combo)) {
            return;
        }
        int connections = 64;
        int size = combo.allocator() == AllocatorKind.ONE_BYTE_READS ? 512 : 32 * 1024;
        Channel server = bindServer(combo, ChannelType.TCP, loopback(), new EchoHandler(),
                b -> b.option(ChannelOption.SO_BACKLOG, 256));
        assertEquals(256, server.config().getOption(ChannelOption.SO_BACKLOG), "SO_BACKLOG is honoured, not ignored");
        List<Channel> channels = new ArrayList<>();
        List<Recorder> recorders = new ArrayList<>();
        try {
            for (int i = 0; i < connections; i++) {
                Recorder r = new Recorder();
                recorders.add(r);
                channels.add(connect(combo, ChannelType.TCP, server.localAddress(), r, null));
            }
            for (int i = 0; i < connections; i++) {
                Channel ch = channels.get(i);
                Buffer buf = ch.alloc().buffer(size);
                buf.writeBytes(randomBytes(size, i));
                ch.writeAndFlush(buf);
            }
            for (int i = 0; i < connections; i++) {
                Recorder r = recorders.get(i);
                eventually("echo on connection " + r.channel(), () -> r.byteCount() >= size);
                assertArrayEquals(randomBytes(size, i), r.bytes(), "connection " + i);
                assertEquals(1, r.count("active"));
                assertTrue(r.count(e -> e.startsWith("exception")) == 0, r.events().toString());
            }
        } finally {
            closeAll(channels.toArray(new Channel[0]));
            closeAll(server);
        }
    }
}
