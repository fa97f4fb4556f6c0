package io.conduit.internal.osgi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ConnectionFacts;
import io.conduit.channel.DatagramChannel;
import io.conduit.channel.DomainDatagramChannel;
import io.conduit.channel.DomainSocketChannel;
import io.conduit.channel.ServerChannel;
import io.conduit.channel.SocketChannel;
import io.conduit.channel.TcpInfo;
import io.conduit.channel.embedded.EmbeddedChannel;
import io.conduit.internal.channel.core.ChannelStats;
import io.conduit.internal.channel.core.OpenChannels;
import io.conduit.internal.transport.TransportRegistry;
import io.conduit.transport.Availability;
import org.junit.jupiter.api.Test;

/** The Gogo commands as plain method calls (no framework). */
class ConduitCommandsTest {

    private final TransportRegistry registry = TestProviders.registry(
            TestProviders.provider("alpha", false, 30, Availability.available()),
            TestProviders.provider("beta", false, 20, Availability.available()),
            TestProviders.provider("gone", true, 100,
                    Availability.unavailable(new UnsatisfiedLinkError("libgone.so: cannot open\nsecond line"))));
    private final ConduitCommands commands = new ConduitCommands(registry);

    @Test
    void transportsListsEveryProviderWithAvailabilityCauseAndTheSelection() {
        String out = commands.transports();
        assertTrue(out.contains("* alpha        java        30  yes"), out);
        assertTrue(out.contains("  beta         java        20  yes"), out);
        assertTrue(out.contains("  gone         native     100  no        libgone.so: cannot open\n"), out);
        String goneRow = out.lines().filter(l -> l.startsWith("  gone")).findFirst().orElseThrow();
        assertTrue(goneRow.endsWith("libgone.so: cannot open"), "only the cause's first line: " + goneRow);
        assertTrue(out.contains("preference: auto (default)"), out);
        assertTrue(out.contains("selected: alpha - "), out);
    }

    @Test
    void transportsSaysWhatToInstallWhenNothingIsRegistered() {
        String out = new ConduitCommands(TestProviders.registry()).transports();
        assertTrue(out.contains("no transport registered: install conduit-nio"), out);
        assertTrue(out.contains("no transport selected: "), out);
    }

    @Test
    void useSetsAndClearsTheRunTimePreference() {
        String out = commands.use(" beta ");
        assertEquals("beta", registry.preferenceOverride());
        assertEquals("beta", registry.selected().name());
        assertTrue(out.contains("selected: beta"), out);
        assertTrue(commands.transports().contains("preference: beta (run-time override"), commands.transports());

        out = commands.use();
        assertNull(registry.preferenceOverride());
        assertEquals("alpha", registry.selected().name());
        assertTrue(out.contains("selected: alpha"), out);
    }

    @Test
    void useRejectsAMalformedPreferenceAndKeepsTheOldOne() {
        commands.use("beta");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> commands.use("auto,nio"));
        assertTrue(e.getMessage().contains("mixes 'auto' with transport names"), e.getMessage());
        assertEquals("beta", registry.preferenceOverride());
    }

    /**
     * {@code conduit:use iouring} once replied {@code preference set to 'iouring'} and nothing about the name no
     * transport has. The name is kept, as {@code transport = iouring} in the configuration file is (the bundle may
     * register later), and the reply says so, with the registered names and the nearest one, and the selection once.
     */
    @Test
    void useOfAnUnregisteredNameKeepsItAndSaysWhichNamesAreRegistered() {
        TransportRegistry natives = TestProviders.registry(
                TestProviders.provider("epoll", true, 100, Availability.available()),
                TestProviders.provider("io_uring", true, 90, Availability.available()),
                TestProviders.provider("nio", false, 10, Availability.available()));
        String out = new ConduitCommands(natives).use("iouring");
        assertEquals("iouring", natives.preferenceOverride());
        assertEquals("preference set to 'iouring'\n"
                + "warning: no registered transport is named 'iouring' (did you mean 'io_uring'?); registered"
                + " transports: epoll, io_uring, nio; the name is kept and applies once a bundle registers it"
                + " ('conduit:use' alone drops the preference)\n"
                + "selected: epoll\n", out);
    }

    @Test
    void useNamesEveryUnregisteredNameOfAList() {
        String out = commands.use("alpa,beta,zzz");
        assertTrue(out.contains("no registered transport is named 'alpa' (did you mean 'alpha'?), 'zzz';"
                + " registered transports: alpha, beta, gone; the names are kept"), out);
        assertEquals(1, out.lines().filter(l -> l.startsWith("selected: ")).count(), out);
        assertTrue(out.endsWith("selected: beta\n"), out);
    }

    /** Names ignore case, as in {@code conduit.transport}: {@code BETA} is {@code beta}, with no warning. */
    @Test
    void useOfANameInAnotherCaseSelectsThatTransport() {
        assertEquals("preference set to 'BETA'\nselected: beta\n", commands.use("BETA"));
    }

    @Test
    void useOfRegisteredNamesHasNoWarning() {
        String out = commands.use("beta,alpha");
        assertEquals("preference set to 'beta,alpha'\nselected: beta\n", out);
    }

    @Test
    void diagIsTheDiagnosticsReport() {
        assertTrue(commands.diag().startsWith("Conduit diagnostics\n"), commands.diag());
    }

    @Test
    void channelsListsTheChannelsTheCoreReports() {
        EmbeddedChannel channel = new EmbeddedChannel();
        ChannelStats stats = new ChannelStats() {
            @Override
            public EmbeddedChannel channel() {
                return channel;
            }

            @Override
            public long bytesRead() {
                return 1234;
            }

            @Override
            public long bytesWritten() {
                return 56;
            }

            @Override
            public long openedAtNanos() {
                return System.nanoTime() - TimeUnit.SECONDS.toNanos(75);
            }
        };
        int before = OpenChannels.snapshot().size();
        assertTrue(OpenChannels.add(stats));
        try {
            String out = commands.channels();
            String row = out.lines().filter(l -> l.startsWith(channel.id())).findFirst().orElseThrow(
                    () -> new AssertionError("no row for " + channel.id() + " in\n" + out));
            assertTrue(row.contains(channel.transportName()), row);
            assertTrue(row.matches(".*\\s1234\\s+56\\s+1m1[4-6]s$"), row);
            assertTrue(out.contains((before + 1) + " open channel"), out);
        } finally {
            assertTrue(OpenChannels.remove(stats));
            channel.close();
        }
        assertEquals(before, OpenChannels.snapshot().size());
    }

    /** A handler that knows its connection's real peer, as the PROXY decoder or the TLS handler does. */
    private static final class Facts implements ChannelHandler, ConnectionFacts {
        private final String line;

        Facts(String line) {
            this.line = line;
        }

        @Override
        public String connectionFacts() {
            return line;
        }
    }

    @Test
    void channelsShowsTheConnectionFactsOfTheHandlersInAPeerColumnOnlyWhenThereAreAny() {
        EmbeddedChannel plain = new EmbeddedChannel();
        ChannelStats plainStats = stats(plain, 1, 2);
        assertTrue(OpenChannels.add(plainStats));
        try {
            assertFalse(commands.channels().lines().findFirst().orElseThrow().contains("PEER"),
                    "no column while no handler knows anything");
            EmbeddedChannel proxied = new EmbeddedChannel(new Facts("PROXY v2 from 203.0.113.7:51000"),
                    new Facts(null), new Facts("TLSv1.3 peer CN=device-42"));
            ChannelStats proxiedStats = stats(proxied, 3, 4);
            assertTrue(OpenChannels.add(proxiedStats));
            try {
                String out = commands.channels();
                List<String> lines = out.lines().toList();
                assertTrue(lines.get(0).matches("ID\\s+TRANSPORT\\s+TYPE\\s+LOCAL\\s+REMOTE\\s+BYTES IN\\s+"
                        + "BYTES OUT\\s+AGE\\s+PEER"), lines.get(0));
                int peerColumn = lines.get(0).indexOf("PEER");
                String row = lines.stream().filter(l -> l.startsWith(proxied.id())).findFirst().orElseThrow();
                assertEquals("PROXY v2 from 203.0.113.7:51000; TLSv1.3 peer CN=device-42", row.substring(peerColumn),
                        out);
                String other = lines.stream().filter(l -> l.startsWith(plain.id())).findFirst().orElseThrow();
                assertTrue(other.length() <= peerColumn, "a channel without facts leaves the column empty:\n" + out);
            } finally {
                assertTrue(OpenChannels.remove(proxiedStats));
                proxied.close();
            }
        } finally {
            assertTrue(OpenChannels.remove(plainStats));
            plain.close();
        }
    }

    @Test
    void channelsVerboseAddsTheTcpInfoLineUnderEachTcpConnection() {
        TcpInfo info = new TcpInfo(1, 0, 0, 203_333, 32_768, 536, 0, 0, 0, 65_535, 52, 21, Integer.MAX_VALUE, 10, 3);
        Channel epoll = fakeTcp("0xepoll", () -> info);
        Channel nio = fakeTcp("0xnio", () -> {
            throw new UnsupportedOperationException("the 'nio' transport cannot read TCP_INFO; use a native"
                    + " transport such as epoll");
        });
        List<ChannelStats> listed = List.of(stats(epoll, 1, 2), stats(nio, 3, 4),
                stats(fakeChannel(ServerChannel.class, "0xlistener", new InetSocketAddress("127.0.0.1", 1), null), 0,
                        0));
        listed.forEach(OpenChannels::add);
        try {
            assertFalse(commands.channels().contains("tcp_info"), "only with -v");
            List<String> lines = commands.channels("-v").lines().toList();
            int at = lines.indexOf(lines.stream().filter(l -> l.startsWith("0xepoll ")).findFirst().orElseThrow());
            assertEquals("    tcp_info: ESTABLISHED rtt 0.052/0.021 ms rto 203 ms cwnd 10 ssthresh 2147483647 unacked 0"
                    + " lost 0 retrans 0/3 mss 32768 pmtu 65535", lines.get(at + 1));
            at = lines.indexOf(lines.stream().filter(l -> l.startsWith("0xnio ")).findFirst().orElseThrow());
            assertEquals("    tcp_info: the 'nio' transport cannot read TCP_INFO; use a native transport such as epoll",
                    lines.get(at + 1));
            at = lines.indexOf(lines.stream().filter(l -> l.startsWith("0xlistener ")).findFirst().orElseThrow());
            assertFalse(at + 1 < lines.size() && lines.get(at + 1).contains("tcp_info"), "a listener has none");
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> commands.channels("-x"));
            assertEquals("unknown option '-x'; usage: conduit:channels [-v]", e.getMessage());
        } finally {
            listed.forEach(OpenChannels::remove);
        }
    }

    private static Channel fakeTcp(String id, java.util.function.Supplier<TcpInfo> tcpInfo) {
        return (Channel) Proxy.newProxyInstance(ConduitCommandsTest.class.getClassLoader(),
                new Class<?>[] {SocketChannel.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "id" -> id;
                    case "transportName" -> "fake";
                    case "localAddress" -> new InetSocketAddress("127.0.0.1", 40000);
                    case "remoteAddress" -> new InetSocketAddress("127.0.0.1", 7);
                    case "tcpInfo" -> tcpInfo.get();
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    case "toString" -> id;
                    default -> null;
                });
    }

    /** A channel of the given public interface answering only what {@code conduit:channels} asks. */
    private static Channel fakeChannel(Class<? extends Channel> type, String id, SocketAddress local,
            SocketAddress remote) {
        return (Channel) Proxy.newProxyInstance(ConduitCommandsTest.class.getClassLoader(), new Class<?>[] {type},
                (proxy, method, args) -> switch (method.getName()) {
                    case "id" -> id;
                    case "transportName" -> "fake";
                    case "localAddress" -> local;
                    case "remoteAddress" -> remote;
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    case "toString" -> id;
                    default -> null;
                });
    }

    private static ChannelStats stats(Channel channel, long in, long out) {
        long opened = System.nanoTime() - TimeUnit.SECONDS.toNanos(3);
        return new ChannelStats() {
            @Override
            public Channel channel() {
                return channel;
            }

            @Override
            public long bytesRead() {
                return in;
            }

            @Override
            public long bytesWritten() {
                return out;
            }

            @Override
            public long openedAtNanos() {
                return opened;
            }
        };
    }

    @Test
    void channelsNamesEachChannelsTypeAndKeepsColumnsAlignedWithLongUnixPaths() {
        InetSocketAddress tcp = new InetSocketAddress("127.0.0.1", 7007);
        UnixDomainSocketAddress longPath = UnixDomainSocketAddress.of("/var/run/conduit/a/rather/long/directory/"
                + "name/for/the/gateway/echo-service.sock");
        List<ChannelStats> listed = List.of(
                stats(fakeChannel(ServerChannel.class, "0xtcpserver", tcp, null), 0, 0),
                stats(fakeChannel(SocketChannel.class, "0xtcp", tcp, new InetSocketAddress("127.0.0.1", 40000)), 5, 5),
                stats(fakeChannel(DatagramChannel.class, "0xudp", tcp, null), 1234567, 89),
                stats(fakeChannel(ServerChannel.class, "0xunixserver", longPath, null), 0, 0),
                stats(fakeChannel(DomainSocketChannel.class, "0xunix", longPath, UnixDomainSocketAddress.of("")), 3, 4),
                stats(fakeChannel(DomainDatagramChannel.class, "0xunixdgram", longPath, null), 7, 8));
        listed.forEach(OpenChannels::add);
        try {
            String out = commands.channels();
            List<String> lines = out.lines().toList();
            String header = lines.get(0);
            assertTrue(header.matches("ID\\s+TRANSPORT\\s+TYPE\\s+LOCAL\\s+REMOTE\\s+BYTES IN\\s+BYTES OUT\\s+AGE"),
                    header);
            Map<String, String> expectedType = Map.of("0xtcpserver", "tcp-server", "0xtcp", "tcp", "0xudp", "udp",
                    "0xunixserver", "unix-server", "0xunix", "unix", "0xunixdgram", "unix-dgram");
            int typeColumn = header.indexOf("TYPE");
            int localColumn = header.indexOf("LOCAL");
            int inEnd = header.indexOf("BYTES IN") + "BYTES IN".length();
            int outEnd = header.indexOf("BYTES OUT") + "BYTES OUT".length();
            for (Map.Entry<String, String> e : expectedType.entrySet()) {
                String row = lines.stream().filter(l -> l.startsWith(e.getKey() + " ")).findFirst()
                        .orElseThrow(() -> new AssertionError(e.getKey() + " missing in\n" + out));
                assertEquals(e.getValue(), row.substring(typeColumn, localColumn).trim(), row);
                assertTrue(row.charAt(inEnd - 1) != ' ' && row.charAt(inEnd) == ' ', "BYTES IN right-aligned:\n" + out);
                assertTrue(row.charAt(outEnd - 1) != ' ' && row.charAt(outEnd) == ' ', "BYTES OUT right-aligned:\n"
                        + out);
            }
            String unix = lines.stream().filter(l -> l.startsWith("0xunix ")).findFirst().orElseThrow();
            assertTrue(unix.contains(" (unnamed) "), "an unnamed Unix peer is shown as such, not blank:\n" + out);
            String udp = lines.stream().filter(l -> l.startsWith("0xudp ")).findFirst().orElseThrow();
            assertTrue(udp.matches(".*\\s1234567\\s+89\\s+3s$"), udp);
            assertTrue(out.contains(longPath.toString()), out);
        } finally {
            listed.forEach(OpenChannels::remove);
        }
    }

    @Test
    void aChannelOfNoKnownTypeIsOther() {
        EmbeddedChannel channel = new EmbeddedChannel();
        try {
            assertEquals("other", ConduitCommands.type(channel));
        } finally {
            channel.close();
        }
    }

    @Test
    void ageIsHumanReadable() {
        assertEquals("0ms", ConduitCommands.age(-5));
        assertEquals("950ms", ConduitCommands.age(TimeUnit.MILLISECONDS.toNanos(950)));
        assertEquals("12s", ConduitCommands.age(TimeUnit.SECONDS.toNanos(12)));
        assertEquals("3m05s", ConduitCommands.age(TimeUnit.SECONDS.toNanos(185)));
        assertEquals("2h07m", ConduitCommands.age(TimeUnit.MINUTES.toNanos(127)));
    }
}
