package io.conduit.epoll;

import static io.conduit.epoll.EpollTestSupport.await;
import static io.conduit.epoll.EpollTestSupport.awaitFailure;
import static io.conduit.epoll.EpollTestSupport.closeAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.conduit.buffer.Buffer;
import io.conduit.bootstrap.Bootstrap;
import io.conduit.channel.Channel;
import io.conduit.channel.DomainDatagramChannel;
import io.conduit.channel.DomainDatagramPacket;
import io.conduit.channel.UnixAbstractAddress;
import io.conduit.testsuite.Recorder;
import io.conduit.transport.ChannelType;
import io.conduit.transport.spi.IoEventLoopGroup;

import java.net.BindException;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What only epoll's Unix-domain datagram sockets do: Linux abstract names ({@code unix(7)}: {@code sun_path[0] ==
 * '\0'}, no socket file) — two channels named by abstract names exchange datagrams and see each other's name, a
 * connected pair mixing an abstract name and a path, and a second bind to a taken name failing with
 * {@code EADDRINUSE}. Everything the transports share is {@link EpollDomainDatagramTest} (the conformance suite).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EpollUnixDatagramTest {

    private final EpollTransport transport = EpollTestSupport.transport();
    private final IoEventLoopGroup group = EpollTestSupport.group(2);

    @TempDir
    Path dir;

    @AfterEach
    void closeGroup() throws InterruptedException {
        EpollTestSupport.close(group);
    }

    private Bootstrap bootstrap(Recorder handler) {
        return new Bootstrap().transport(transport).group(group).channelType(ChannelType.UNIX_DATAGRAM).handler(handler);
    }

    private DomainDatagramChannel bind(Recorder rx, SocketAddress at) {
        return (DomainDatagramChannel) await(bootstrap(rx).bind(at));
    }

    private static Buffer text(Channel c, String s) {
        byte[] a = s.getBytes(StandardCharsets.UTF_8);
        return c.alloc().buffer(a.length).writeBytes(a);
    }

    private static Recorder.ReceivedDomainDatagram poll(Recorder r) throws InterruptedException {
        Recorder.ReceivedDomainDatagram d = r.domainDatagrams.poll(EpollTestSupport.WAIT_SECONDS, TimeUnit.SECONDS);
        if (d == null) {
            fail("no datagram within " + EpollTestSupport.WAIT_SECONDS + " s");
        }
        return d;
    }

    private static String text(Recorder.ReceivedDomainDatagram d) {
        return new String(d.content(), StandardCharsets.UTF_8);
    }

    private static UnixAbstractAddress unique(String prefix) {
        return UnixAbstractAddress.of(prefix + ProcessHandle.current().pid() + "-" + System.nanoTime());
    }

    @Test
    void twoChannelsBoundToAbstractNamesExchangeDatagramsAndSeeEachOthersName() throws Exception {
        Recorder aRx = new Recorder();
        Recorder bRx = new Recorder();
        UnixAbstractAddress aName = unique("conduit-dgram-a-");
        UnixAbstractAddress bName = unique("conduit-dgram-b-");
        DomainDatagramChannel a = bind(aRx, aName);
        DomainDatagramChannel b = bind(bRx, bName);
        try {
            assertEquals(aName, a.localAddress());
            assertEquals(bName, b.localAddress());
            for (int i = 0; i < 10; i++) {
                await(a.writeAndFlush(new DomainDatagramPacket(text(a, "ping " + i), bName)));
                Recorder.ReceivedDomainDatagram got = poll(bRx);
                assertEquals("ping " + i, text(got));
                assertEquals(aName, got.sender(), "the sender's abstract name comes with the datagram");
                assertEquals(bName, got.recipient());
                await(b.writeAndFlush(new DomainDatagramPacket(text(b, "pong " + i), got.sender())));
                Recorder.ReceivedDomainDatagram reply = poll(aRx);
                assertEquals("pong " + i, text(reply));
                assertEquals(bName, reply.sender());
            }
            await(a.writeAndFlush(new DomainDatagramPacket(a.alloc().buffer(0), bName)));
            assertEquals(0, poll(bRx).content().length, "an empty datagram is delivered");
        } finally {
            closeAll(a, b);
        }
        try (var files = Files.list(dir)) {
            assertEquals(0, files.count(), "abstract names create no socket files");
        }
    }

    @Test
    void aChannelNamedByAnAbstractNameConnectsToAPathAndIsAnsweredByName() throws Exception {
        Recorder serverRx = new Recorder();
        Recorder clientRx = new Recorder();
        SocketAddress serverAddress = UnixDomainSocketAddress.of(dir.resolve("server.sock"));
        UnixAbstractAddress clientName = unique("conduit-dgram-client-");
        DomainDatagramChannel server = bind(serverRx, serverAddress);
        DomainDatagramChannel client = bind(clientRx, clientName);
        try {
            await(client.connect(serverAddress));
            assertTrue(client.isConnected());
            assertEquals(serverAddress, client.remoteAddress());
            await(client.writeAndFlush(text(client, "plain")));
            Recorder.ReceivedDomainDatagram got = poll(serverRx);
            assertEquals("plain", text(got));
            assertEquals(clientName, got.sender());
            await(server.writeAndFlush(new DomainDatagramPacket(text(server, "back"), clientName)));
            Recorder.ReceivedDomainDatagram back = poll(clientRx);
            assertEquals("back", text(back));
            assertEquals(serverAddress, back.sender());

            await(server.connect(clientName));
            assertEquals(clientName, server.remoteAddress(), "an abstract name is a remote address too");
            await(server.writeAndFlush(text(server, "connected both ways")));
            assertEquals("connected both ways", text(poll(clientRx)));
        } finally {
            closeAll(client, server);
        }
    }

    @Test
    void aSecondBindToATakenAbstractNameFailsWithAddressInUse() throws Exception {
        UnixAbstractAddress name = unique("conduit-dgram-taken-");
        DomainDatagramChannel first = bind(new Recorder(), name);
        try {
            Throwable cause = awaitFailure(bootstrap(new Recorder()).bind(name));
            Throwable bind = cause;
            while (bind != null && !(bind instanceof BindException)) {
                bind = bind.getCause();
            }
            assertInstanceOf(BindException.class, bind, String.valueOf(cause));
            assertTrue(cause.getMessage().contains(name.toString()), cause.getMessage());
            assertTrue(first.isOpen());
        } finally {
            closeAll(first);
        }
        DomainDatagramChannel again = bind(new Recorder(), name);
        try {
            assertEquals(name, again.localAddress(), "the name is free again once its channel closed");
        } finally {
            closeAll(again);
        }
    }
}
