package io.conduit.testsuite;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.conduit.buffer.Buffer;
import io.conduit.bootstrap.Bootstrap;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelClosedException;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.DomainDatagramChannel;
import io.conduit.channel.DomainDatagramPacket;
import io.conduit.channel.UnixAbstractAddress;
import io.conduit.concurrent.EventLoop;
import io.conduit.concurrent.Future;
import io.conduit.transport.ChannelType;
import io.conduit.transport.Transport;

import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.AlreadyConnectedException;
import java.nio.channels.NotYetConnectedException;
import java.nio.channels.UnsupportedAddressTypeException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Unix-domain datagram channels ({@link ChannelType#UNIX_DATAGRAM}: {@code AF_UNIX}, {@code SOCK_DGRAM},
 * {@code unix(7)}) between socket file paths: byte-exact datagrams with the sender's path, empty datagrams, connected
 * mode (plain buffers, the peer as sender and remote address, the address rule of
 * {@link io.conduit.channel.DatagramChannel}), an unnamed sender, truncation to the receive slot, a datagram too long
 * to send, the socket file removed at close, a bind to a path in use, abstract names only where the transport has
 * them, writes waiting for a receiver that stopped reading, and that every packet's content is released whatever
 * happens to it (sent, failed, refused, pending at close, unhandled at the pipeline tail). The permutation's server
 * transport receives, its client transport sends.
 *
 * <p>Sizes stay within what every system sends by default (2,048 bytes: macOS's {@code net.local.dgram.maxdgram});
 * the tests that need more set {@code SO_SNDBUF} and {@code SO_RCVBUF} on both sockets.
 *
 * <p>A transport without Unix datagram channels ({@code nio}, {@code nio-vthread}: the JDK has no Unix-domain
 * {@code DatagramChannel}) is named by the module's subclass in {@link #transportsWithoutUnixDatagrams()}; every
 * test of a permutation with it then asserts that the transport says so honestly and refuses the type with a message
 * that says what to use instead — the permutation is not skipped. A transport not named there must have them.
 */
public abstract class DomainDatagramTest extends AbstractTransportTest {

    /**
     * The receive slot of the transports with Unix datagram channels, bytes, as
     * {@link DomainDatagramChannel} documents: a longer datagram arrives cut to it and marked truncated.
     */
    protected static final int RECEIVE_SLOT_BYTES = 65_536;

    /** Socket buffers for the tests of large datagrams, bytes: room for 100,000-byte datagrams on every system. */
    private static final int LARGE_SOCKET_BUFFER_BYTES = 262_144;

    /**
     * @return the names of this module's transports that have no Unix datagram channels; their refusal is asserted
     *         instead of the behaviour. Empty by default.
     */
    protected Set<String> transportsWithoutUnixDatagrams() {
        return Set.of();
    }

    // ------------------------------------------------------------------------------------------ helpers

    /**
     * @return {@code true} when both transports of {@code combo} are available and have Unix datagram channels;
     *         otherwise the unavailability, or the refusal of each transport without them, was asserted and printed
     */
    private boolean runnableWithUnixDatagrams(Combo combo) {
        if (!runnable(combo)) {
            return false;
        }
        List<String> refusing = new ArrayList<>();
        for (Transport t : List.of(combo.serverTransport(), combo.clientTransport())) {
            if (refusing.contains(t.name())) {
                continue;
            }
            if (transportsWithoutUnixDatagrams().contains(t.name())) {
                assertRefusesUnixDatagrams(t);
                refusing.add(t.name());
            } else {
                assertTrue(t.channelTypes().contains(ChannelType.UNIX_DATAGRAM), "transport '" + t.name()
                        + "' must have Unix datagram channels, but lists only " + t.channelTypes());
            }
        }
        if (refusing.isEmpty()) {
            return true;
        }
        System.out.println("[conformance] " + getClass().getSimpleName() + " [" + combo + "]: " + refusing
                + " have no Unix datagram channels and say so, as asserted");
        return false;
    }

    /**
     * A transport without Unix datagram channels does not list the type, and every way to ask for one fails at once
     * with an {@link UnsupportedOperationException} naming the transport, the type, and epoll and kqueue as the
     * transports to use instead.
     */
    private void assertRefusesUnixDatagrams(Transport t) {
        assertFalse(t.channelTypes().contains(ChannelType.UNIX_DATAGRAM), t.name() + " lists " + t.channelTypes());
        EventLoop loop = group(t).next();
        assertRefusal(t, assertThrows(UnsupportedOperationException.class,
                () -> t.newChannel(ChannelType.UNIX_DATAGRAM, loop)));
        assertRefusal(t, assertThrows(UnsupportedOperationException.class,
                () -> new Bootstrap().transport(t).group(group(t)).channelType(ChannelType.UNIX_DATAGRAM)
                        .handler(new Recorder()).bind(unixAddress())));
        UnsupportedOperationException server = assertThrows(UnsupportedOperationException.class,
                () -> t.newServerChannel(ChannelType.UNIX_DATAGRAM, loop));
        assertTrue(String.valueOf(server.getMessage()).contains("UNIX_DATAGRAM"), server.getMessage());
    }

    private static void assertRefusal(Transport t, UnsupportedOperationException e) {
        String message = String.valueOf(e.getMessage());
        assertTrue(message.contains("'" + t.name() + "'") && message.contains("UNIX_DATAGRAM")
                && message.contains("epoll") && message.contains("kqueue"), message);
    }

    private Bootstrap bootstrap(Transport t, Combo combo, ChannelHandler handler) {
        return new Bootstrap().transport(t).group(group(t)).channelType(ChannelType.UNIX_DATAGRAM).handler(handler)
                .option(ChannelOption.ALLOCATOR, combo.allocator().allocator());
    }

    private DomainDatagramChannel bind(Transport t, Combo combo, ChannelHandler handler, SocketAddress at,
            Consumer<Bootstrap> customize) {
        Bootstrap b = bootstrap(t, combo, handler);
        if (customize != null) {
            customize.accept(b);
        }
        return (DomainDatagramChannel) await(b.bind(at));
    }

    /**
     * A receiver of the server transport and a sender of the client transport, each bound to a path of its own and
     * recorded; closing closes both.
     */
    private record Pair(DomainDatagramChannel receiver, Recorder rx, UnixDomainSocketAddress rxAddress,
            DomainDatagramChannel sender, Recorder tx, UnixDomainSocketAddress txAddress) implements AutoCloseable {
        @Override
        public void close() {
            closeAll(sender, receiver);
        }
    }

    /**
     * @param receiverOptions bootstrap settings of the receiver, or {@code null}
     * @param senderOptions   bootstrap settings of the sender, or {@code null}
     */
    private Pair pair(Combo combo, Consumer<Bootstrap> receiverOptions, Consumer<Bootstrap> senderOptions) {
        Recorder rx = new Recorder();
        Recorder tx = new Recorder();
        UnixDomainSocketAddress rxAddress = unixAddress();
        UnixDomainSocketAddress txAddress = unixAddress();
        DomainDatagramChannel receiver = bind(combo.serverTransport(), combo, rx, rxAddress, receiverOptions);
        try {
            return new Pair(receiver, rx, rxAddress, bind(combo.clientTransport(), combo, tx, txAddress, senderOptions),
                    tx, txAddress);
        } catch (RuntimeException | Error e) {
            closeAll(receiver);
            throw e;
        }
    }

    /** Writes {@code data} as one datagram to {@code to} and waits until it was sent. */
    private static void send(Channel from, byte[] data, SocketAddress to) {
        await(from.writeAndFlush(new DomainDatagramPacket(content(from, data), to)));
    }

    private static Consumer<Bootstrap> largeSocketBuffers() {
        return b -> b.option(ChannelOption.SO_SNDBUF, LARGE_SOCKET_BUFFER_BYTES)
                .option(ChannelOption.SO_RCVBUF, LARGE_SOCKET_BUFFER_BYTES);
    }

    private static Buffer content(Channel c, byte[] data) {
        return c.alloc().buffer(data.length).writeBytes(data);
    }

    private static Recorder.ReceivedDomainDatagram poll(Recorder r, String what) throws InterruptedException {
        Recorder.ReceivedDomainDatagram d = r.domainDatagrams.poll(WAIT_SECONDS, TimeUnit.SECONDS);
        if (d == null) {
            fail("no datagram within " + WAIT_SECONDS + " s: " + what);
        }
        return d;
    }

    // -------------------------------------------------------------------------------------------- tests

    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void theTransportMakesDomainDatagramChannelsAndSaysSo(Combo combo) {
        if (!runnableWithUnixDatagrams(combo)) {
            return;
        }
        Transport t = combo.serverTransport();
        assertTrue(t.supportsAddress(unixAddress()), "socket file paths");
        assertTrue(t.supports(ChannelOption.SO_SNDBUF) && t.supports(ChannelOption.SO_RCVBUF), "the size options");
        EventLoop loop = group(t).next();
        Channel c = t.newChannel(ChannelType.UNIX_DATAGRAM, loop);
        try {
            assertInstanceOf(DomainDatagramChannel.class, c);
        } finally {
            closeAll(c);
        }
        UnsupportedOperationException server = assertThrows(UnsupportedOperationException.class,
                () -> t.newServerChannel(ChannelType.UNIX_DATAGRAM, loop));
        assertTrue(String.valueOf(server.getMessage()).contains("no server channel"), server.getMessage());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void datagramsBetweenSocketFilesArriveByteExactWithTheSendersPath(Combo combo) throws Exception {
        if (!runnableWithUnixDatagrams(combo)) {
            return;
        }
        try (Pair p = pair(combo, null, null)) {
            assertEquals(p.rxAddress(), p.receiver().localAddress());
            assertEquals(p.txAddress(), p.sender().localAddress());
            assertFalse(p.receiver().isConnected());
            assertNull(p.receiver().remoteAddress());
            for (int size : new int[] {0, 1, 100, 1024, 2000}) {
                byte[] data = randomBytes(size, size);
                Buffer sent = content(p.sender(), data);
                await(p.sender().writeAndFlush(new DomainDatagramPacket(sent, p.rxAddress())));
                assertEquals(0, sent.refCnt(), "a sent packet's content is released");
                Recorder.ReceivedDomainDatagram got = poll(p.rx(), size + " bytes");
                assertArrayEquals(data, got.content(), size + " bytes");
                assertEquals(p.txAddress(), got.sender(), "the sender's bound path comes with the datagram");
                assertEquals(p.rxAddress(), got.recipient());
                assertFalse(got.truncated());

                byte[] reply = randomBytes(size, -size - 1);
                send(p.receiver(), reply, got.sender());
                Recorder.ReceivedDomainDatagram back = poll(p.tx(), "reply of " + size + " bytes");
                assertArrayEquals(reply, back.content(), "reply of " + size + " bytes");
                assertEquals(p.rxAddress(), back.sender());
            }
        }
    }

    /**
     * Connected: plain buffers go to the peer, the peer is the remote address and the sender of what arrives, empty
     * datagrams pass both ways; a packet to another path, an IP address or a second connect fail alone and the
     * channel stays open; after {@code disconnect} packets need a recipient again. A never-bound socket's datagram
     * reports the empty path as its sender ({@code unix(7)}).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void connectedChannelsWritePlainBuffersAndSeeTheirPeer(Combo combo) throws Exception {
        if (!runnableWithUnixDatagrams(combo)) {
            return;
        }
        UnixDomainSocketAddress elsewhere = unixAddress();
        Pair p = pair(combo, null, null);
        DomainDatagramChannel server = p.receiver();
        DomainDatagramChannel client = p.sender();
        Recorder serverRx = p.rx();
        Recorder clientRx = p.tx();
        UnixDomainSocketAddress serverAddress = p.rxAddress();
        UnixDomainSocketAddress clientAddress = p.txAddress();
        Channel unnamed = null;
        try {
            await(client.connect(serverAddress));
            assertTrue(client.isConnected());
            assertEquals(serverAddress, client.remoteAddress());
            for (int i = 0; i < 5; i++) {
                byte[] data = randomBytes(200 + i, i);
                await(client.writeAndFlush(content(client, data)));
                Recorder.ReceivedDomainDatagram got = poll(serverRx, "plain buffer " + i);
                assertArrayEquals(data, got.content());
                assertEquals(clientAddress, got.sender());
                byte[] reply = randomBytes(100 + i, -i);
                send(server, reply, clientAddress);
                Recorder.ReceivedDomainDatagram back = poll(clientRx, "reply " + i);
                assertArrayEquals(reply, back.content());
                assertEquals(serverAddress, back.sender(), "a connected channel reports its peer as the sender");
            }
            await(client.writeAndFlush(client.alloc().buffer(0)));
            assertEquals(0, poll(serverRx, "empty, from a connected channel").content().length);
            await(server.writeAndFlush(new DomainDatagramPacket(server.alloc().buffer(0), clientAddress)));
            assertEquals(0, poll(clientRx, "empty, to a connected channel").content().length);

            Throwable toOther = awaitDone(client.writeAndFlush(
                    new DomainDatagramPacket(content(client, new byte[] {1}), elsewhere)));
            assertInstanceOf(AlreadyConnectedException.class, toOther, String.valueOf(toOther));
            String message = String.valueOf(toOther.getMessage());
            assertTrue(message.contains(serverAddress.toString()) && message.contains(elsewhere.toString()), message);
            Throwable again = awaitDone(client.connect(elsewhere));
            assertInstanceOf(AlreadyConnectedException.class, again, String.valueOf(again));
            assertTrue(String.valueOf(again.getMessage()).contains("disconnect"), again.getMessage());
            Throwable inet = awaitDone(server.writeAndFlush(new DomainDatagramPacket(content(server, new byte[] {2}),
                    new InetSocketAddress(loopback().getAddress(), 9))));
            assertInstanceOf(UnsupportedAddressTypeException.class, inet, String.valueOf(inet));
            assertTrue(String.valueOf(inet.getMessage()).contains("UnixDomainSocketAddress"), inet.getMessage());
            assertTrue(client.isOpen() && server.isOpen(), "a refused datagram fails its own write only");
            assertEquals(serverAddress, client.remoteAddress());

            await(client.disconnect());
            assertFalse(client.isConnected());
            assertNull(client.remoteAddress());
            Throwable noRecipient = awaitDone(client.writeAndFlush(content(client, new byte[] {3})));
            assertInstanceOf(NotYetConnectedException.class, noRecipient, String.valueOf(noRecipient));
            byte[] after = randomBytes(50, 99);
            send(client, after, serverAddress);
            assertArrayEquals(after, poll(serverRx, "after disconnect").content());

            unnamed = await(bootstrap(combo.clientTransport(), combo, new Recorder()).connect(serverAddress));
            await(unnamed.writeAndFlush(content(unnamed, new byte[] {4, 5})));
            Recorder.ReceivedDomainDatagram anonymous = poll(serverRx, "from an unnamed socket");
            assertArrayEquals(new byte[] {4, 5}, anonymous.content());
            assertEquals(UnixDomainSocketAddress.of(""), anonymous.sender());
        } finally {
            closeAll(unnamed);
            p.close();
        }
    }

    /** Unconnected and connected receivers alike: a datagram longer than the receive slot arrives cut, marked. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void aDatagramLongerThanTheReceiveSlotArrivesCutAndMarkedTruncated(Combo combo) throws Exception {
        if (!runnableWithUnixDatagrams(combo)) {
            return;
        }
        try (Pair p = pair(combo, largeSocketBuffers(), largeSocketBuffers())) {
            byte[] data = randomBytes(100_000, 7);
            byte[] slot = Arrays.copyOf(data, RECEIVE_SLOT_BYTES);
            send(p.sender(), data, p.rxAddress());
            Recorder.ReceivedDomainDatagram cut = poll(p.rx(), "100,000 bytes, unconnected receiver");
            assertTrue(cut.truncated(), "unconnected receiver: truncation reported");
            assertEquals(RECEIVE_SLOT_BYTES, cut.content().length);
            assertArrayEquals(slot, cut.content(), "the slot's bytes arrive intact");

            await(p.receiver().connect(p.txAddress()));
            send(p.sender(), data, p.rxAddress());
            Recorder.ReceivedDomainDatagram cutConnected = poll(p.rx(), "100,000 bytes, connected receiver");
            assertTrue(cutConnected.truncated(), "connected receiver: truncation reported");
            assertArrayEquals(slot, cutConnected.content());

            byte[] small = randomBytes(1000, 8);
            send(p.sender(), small, p.rxAddress());
            Recorder.ReceivedDomainDatagram whole = poll(p.rx(), "1,000 bytes");
            assertFalse(whole.truncated());
            assertArrayEquals(small, whole.content());
        }
    }

    /**
     * A datagram longer than the sender may send ({@code SO_SNDBUF}) fails its own write, unconnected and connected,
     * with an {@link IOException} saying "Message too long" and naming its length and {@code SO_SNDBUF}; its content
     * is released and the channel keeps sending.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void aDatagramTooLongToSendFailsItsWriteWithAClearMessage(Combo combo) throws Exception {
        if (!runnableWithUnixDatagrams(combo)) {
            return;
        }
        try (Pair p = pair(combo, null, b -> b.option(ChannelOption.SO_SNDBUF, 65_536))) {
            DomainDatagramChannel sender = p.sender();
            UnixDomainSocketAddress rxAddress = p.rxAddress();
            int sndbuf = sender.config().getOption(ChannelOption.SO_SNDBUF); // Linux doubles what was set
            for (boolean connected : new boolean[] {false, true}) {
                if (connected) {
                    await(sender.connect(rxAddress));
                }
                String mode = connected ? "connected" : "unconnected";
                Buffer tooLong = content(sender, randomBytes(sndbuf + 1, 9));
                Throwable cause = awaitDone(sender.writeAndFlush(new DomainDatagramPacket(tooLong, rxAddress)));
                assertInstanceOf(IOException.class, cause, mode + ": " + cause);
                String message = String.valueOf(cause.getMessage());
                assertTrue(message.contains("Message too long") && message.contains((sndbuf + 1) + " bytes")
                        && message.contains("SO_SNDBUF"), mode + ": " + message);
                assertEquals(0, tooLong.refCnt(), mode + ": the content of a failed packet is released");
                assertTrue(sender.isOpen(), mode + ": the channel stays open");
                byte[] fine = randomBytes(64, 10);
                send(sender, fine, rxAddress);
                assertArrayEquals(fine, poll(p.rx(), mode + ": the next datagram").content());
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void theSocketFileIsRemovedAtCloseAndThePathCanBeBoundAgain(Combo combo) {
        if (!runnableWithUnixDatagrams(combo)) {
            return;
        }
        UnixDomainSocketAddress address = unixAddress();
        DomainDatagramChannel c = bind(combo.serverTransport(), combo, new Recorder(), address, null);
        assertTrue(Files.exists(address.getPath()), "bind(2) created the socket file");
        await(c.close());
        assertFalse(Files.exists(address.getPath()), "close removed the socket file");
        DomainDatagramChannel again = bind(combo.clientTransport(), combo, new Recorder(), address, null);
        try {
            assertEquals(address, again.localAddress(), "the path can be bound again");
        } finally {
            closeAll(again);
        }
        assertFalse(Files.exists(address.getPath()));
    }

    /**
     * A bind to a path that holds a socket file (another channel's) or a plain file fails, saying what is in the way
     * and what to do, with a {@link BindException} in its cause chain; the file in the way is left alone and the
     * channel bound there keeps receiving.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void aBindToAPathInUseFailsNamingIt(Combo combo) throws Exception {
        if (!runnableWithUnixDatagrams(combo)) {
            return;
        }
        Recorder firstRx = new Recorder();
        UnixDomainSocketAddress address = unixAddress();
        DomainDatagramChannel first = bind(combo.serverTransport(), combo, firstRx, address, null);
        DomainDatagramChannel sender = null;
        try {
            Throwable inUse = awaitDone(bootstrap(combo.clientTransport(), combo, new Recorder()).bind(address));
            assertNotNull(inUse, "a second bind to " + address + " succeeded");
            assertCausedBy(BindException.class, inUse);
            String message = String.valueOf(inUse.getMessage());
            assertTrue(message.contains(address.getPath().toString()) && message.contains("socket file already exists")
                    && message.contains("remove"), message);
            assertTrue(Files.exists(address.getPath()), "a failed bind leaves the other channel's socket file alone");

            sender = bind(combo.clientTransport(), combo, new Recorder(), unixAddress(), null);
            send(sender, new byte[] {7}, address);
            assertArrayEquals(new byte[] {7}, poll(firstRx, "to the first channel").content());

            Path plain = Files.createFile(unixAddress().getPath());
            Throwable file = awaitDone(bootstrap(combo.clientTransport(), combo, new Recorder())
                    .bind(UnixDomainSocketAddress.of(plain)));
            assertNotNull(file, "a bind over a plain file succeeded");
            assertCausedBy(BindException.class, file);
            message = String.valueOf(file.getMessage());
            assertTrue(message.contains(plain.toString()) && message.contains("a file already exists"), message);
            assertTrue(Files.exists(plain), "the plain file is left alone");
            Files.delete(plain);
        } finally {
            closeAll(sender, first);
        }
    }

    /** Abstract names ({@link UnixAbstractAddress}) bind where the transport says it has them, else fail at once. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void abstractNamesBindOnlyWhereTheTransportHasThem(Combo combo) {
        if (!runnableWithUnixDatagrams(combo)) {
            return;
        }
        UnixAbstractAddress name = UnixAbstractAddress.of("conduit-dgram-conformance-" + ProcessHandle.current().pid()
                + "-" + System.nanoTime());
        Transport t = combo.serverTransport();
        if (hasAbstractNames(t)) {
            DomainDatagramChannel c = bind(t, combo, new Recorder(), name, null);
            try {
                assertEquals(name, c.localAddress());
            } finally {
                closeAll(c);
            }
            return;
        }
        assertAbstractRejected(awaitDone(bootstrap(t, combo, new Recorder()).bind(name)), name);
        assertAbstractRejected(awaitDone(bootstrap(t, combo, new Recorder()).connect(name)), name);
        DomainDatagramChannel c = bind(t, combo, new Recorder(), unixAddress(), null);
        try {
            Buffer refused = content(c, new byte[] {1});
            assertAbstractRejected(awaitDone(c.writeAndFlush(new DomainDatagramPacket(refused, name))), name);
            assertEquals(0, refused.refCnt(), "the content of a refused packet is released");
            assertTrue(c.isOpen());
        } finally {
            closeAll(c);
        }
    }

    /**
     * The core owns a written packet: it frees the content once the datagram was sent, when the send failed (no
     * socket at the path), when the recipient was refused, when the channel closed with the write still queued
     * (that write fails with a {@link ChannelClosedException}), and when the channel was closed before the write.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void writtenPacketsHaveTheirContentReleasedWhateverTheOutcome(Combo combo) throws Exception {
        if (!runnableWithUnixDatagrams(combo)) {
            return;
        }
        try (Pair p = pair(combo, null, null)) {
            DomainDatagramChannel sender = p.sender();
            UnixDomainSocketAddress rxAddress = p.rxAddress();
            Buffer sent = content(sender, randomBytes(16, 6));
            await(sender.writeAndFlush(new DomainDatagramPacket(sent, rxAddress)));
            assertEquals(0, sent.refCnt(), "a sent packet's content is released");
            poll(p.rx(), "the sent datagram");

            UnixDomainSocketAddress nobody = unixAddress();
            Buffer failed = content(sender, new byte[] {1});
            Throwable cause = awaitDone(sender.writeAndFlush(new DomainDatagramPacket(failed, nobody)));
            assertInstanceOf(IOException.class, cause, String.valueOf(cause));
            assertTrue(String.valueOf(cause.getMessage()).contains(nobody.getPath().toString()), cause.getMessage());
            assertEquals(0, failed.refCnt(), "a failed packet's content is released");

            Buffer refused = content(sender, new byte[] {2});
            assertInstanceOf(UnsupportedAddressTypeException.class, awaitDone(sender.writeAndFlush(
                    new DomainDatagramPacket(refused, new InetSocketAddress(loopback().getAddress(), 9)))));
            assertEquals(0, refused.refCnt(), "a refused packet's content is released");
            assertTrue(sender.isOpen(), "failed datagrams do not close the channel");

            Buffer queued = content(sender, new byte[] {3});
            Future<Void> pending = sender.write(new DomainDatagramPacket(queued, rxAddress)); // not flushed
            await(sender.close());
            assertInstanceOf(ChannelClosedException.class, awaitDone(pending), "a write pending at close fails");
            assertEquals(0, queued.refCnt(), "the content of a packet pending at close is released");

            Buffer late = content(sender, new byte[] {4});
            assertInstanceOf(ChannelClosedException.class, awaitDone(sender.writeAndFlush(
                    new DomainDatagramPacket(late, rxAddress))));
            assertEquals(0, late.refCnt(), "a packet written to a closed channel has its content released");
        }
    }

    /**
     * Flushed writes that wait for a receiver that does not read: closing the sender fails every one still waiting
     * with a {@link ChannelClosedException} and releases its content; every write that succeeded arrives, none
     * more — nothing is dropped silently.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void closeFailsTheWritesStillWaitingForAFullReceiver(Combo combo) throws Exception {
        if (!runnableWithUnixDatagrams(combo)) {
            return;
        }
        try (Pair p = pair(combo, b -> b.option(ChannelOption.AUTO_READ, false), null)) {
            DomainDatagramChannel sender = p.sender();
            int count = 300;
            List<Future<Void>> writes = new ArrayList<>();
            List<Buffer> contents = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                Buffer b = content(sender, randomBytes(100, i));
                contents.add(b);
                writes.add(sender.write(new DomainDatagramPacket(b, p.rxAddress())));
            }
            sender.flush();
            eventually("the first writes to complete and the last to wait for the full receiver",
                    () -> writes.get(0).isDone() && !writes.get(count - 1).isDone());
            await(sender.close());
            int succeeded = 0;
            for (int i = 0; i < count; i++) {
                Throwable cause = awaitDone(writes.get(i));
                if (cause == null) {
                    assertEquals(i, succeeded, "writes complete in order: write " + i + " after a failed one");
                    succeeded++;
                } else {
                    assertInstanceOf(ChannelClosedException.class, cause, "write " + i + ": " + cause);
                }
                assertEquals(0, contents.get(i).refCnt(), "write " + i + ": content released");
            }
            assertTrue(succeeded > 0 && succeeded < count, succeeded + " of " + count + " writes succeeded");
            p.receiver().config().setAutoRead(true);
            for (int i = 0; i < succeeded; i++) {
                assertArrayEquals(randomBytes(100, i), poll(p.rx(), "successful write " + i).content());
            }
            assertNull(p.rx().domainDatagrams.poll(200, TimeUnit.MILLISECONDS),
                    "no datagram beyond the successful writes");
        }
    }

    /**
     * The receiver's queue fills while it does not read: the sender's writes wait and are all delivered, in order,
     * once it reads again — connected (writability follows the peer's queue) and unconnected.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void writesToAReceiverThatStoppedReadingWaitAndAllArriveInOrder(Combo combo) throws Exception {
        if (!runnableWithUnixDatagrams(combo)) {
            return;
        }
        for (boolean connect : new boolean[] {true, false}) {
            String mode = connect ? "connected sender" : "unconnected sender";
            try (Pair p = pair(combo, b -> b.option(ChannelOption.AUTO_READ, false), null)) {
                DomainDatagramChannel sender = p.sender();
                UnixDomainSocketAddress rxAddress = p.rxAddress();
                if (connect) {
                    await(sender.connect(rxAddress));
                }
                int count = 500;
                List<Future<Void>> writes = new ArrayList<>();
                for (int i = 0; i < count; i++) {
                    Buffer b = content(sender, ("datagram " + i).getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                    writes.add(connect ? sender.write(b) : sender.write(new DomainDatagramPacket(b, rxAddress)));
                }
                sender.flush();
                eventually(mode + ": some writes to wait for the full receiver",
                        () -> writes.get(0).isDone() && !writes.get(count - 1).isDone());
                p.receiver().config().setAutoRead(true);
                for (int i = 0; i < count; i++) {
                    assertEquals("datagram " + i, new String(poll(p.rx(), mode + ", datagram " + i).content(),
                            java.nio.charset.StandardCharsets.US_ASCII), mode);
                }
                for (Future<Void> w : writes) {
                    await(w);
                }
            }
        }
    }

    /**
     * A received packet that no handler consumes is freed by the pipeline tail, for an unconnected and a connected
     * receiver: the handler passes it on and records the content's count after the tail ran.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void receivedPacketsNobodyConsumesAreReleasedByThePipelineTail(Combo combo) throws Exception {
        if (!runnableWithUnixDatagrams(combo)) {
            return;
        }
        BlockingQueue<Integer> countsAfterTail = new LinkedBlockingQueue<>();
        UnixDomainSocketAddress senderAddress = unixAddress();
        DomainDatagramChannel unconnected = bind(combo.serverTransport(), combo,
                passToTailRecordingCount(countsAfterTail), unixAddress(), null);
        DomainDatagramChannel connected = bind(combo.serverTransport(), combo,
                passToTailRecordingCount(countsAfterTail), unixAddress(), null);
        DomainDatagramChannel sender = bind(combo.clientTransport(), combo, new Recorder(), senderAddress, null);
        try {
            await(connected.connect(senderAddress));
            for (DomainDatagramChannel receiver : List.of(unconnected, connected)) {
                for (int i = 0; i < 3; i++) {
                    send(sender, randomBytes(8, i), receiver.localAddress());
                    assertTailReleased(countsAfterTail, "datagram " + i + " of " + receiver);
                }
            }
        } finally {
            closeAll(sender, connected, unconnected);
        }
    }

    /**
     * The traffic counters {@code conduit:channels} shows count every Unix datagram's payload both ways (the batch
     * paths of the native transports), for a burst written with one flush.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("permutations")
    void trafficCountersCountEveryDatagramsBytes(Combo combo) throws Exception {
        if (!runnableWithUnixDatagrams(combo)) {
            return;
        }
        try (Pair p = pair(combo, null, null)) {
            int[] sizes = {0, 1, 100, 512, 2048, 17, 0, 999, 1200, 64};
            long total = 0;
            List<Future<Void>> writes = new ArrayList<>();
            for (int i = 0; i < sizes.length; i++) {
                writes.add(p.sender().write(new DomainDatagramPacket(content(p.sender(), randomBytes(sizes[i], i)),
                        p.rxAddress())));
                total += sizes[i];
            }
            p.sender().flush();
            writes.forEach(AbstractTransportTest::await);
            for (int i = 0; i < sizes.length; i++) {
                poll(p.rx(), "datagram " + i);
            }
            assertEquals(total, traffic(p.sender()).bytesWritten(), "bytes out of the sender");
            assertEquals(total, traffic(p.receiver()).bytesRead(), "bytes into the receiver");
        }
    }
}
