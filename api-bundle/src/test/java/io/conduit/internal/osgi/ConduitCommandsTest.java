package io.conduit.internal.osgi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import io.conduit.channel.embedded.EmbeddedChannel;
import io.conduit.internal.transport.TransportRegistry;
import io.conduit.transport.Availability;
import io.conduit.transport.spi.ChannelStats;
import io.conduit.transport.spi.OpenChannels;
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

    @Test
    void ageIsHumanReadable() {
        assertEquals("0ms", ConduitCommands.age(-5));
        assertEquals("950ms", ConduitCommands.age(TimeUnit.MILLISECONDS.toNanos(950)));
        assertEquals("12s", ConduitCommands.age(TimeUnit.SECONDS.toNanos(12)));
        assertEquals("3m05s", ConduitCommands.age(TimeUnit.SECONDS.toNanos(185)));
        assertEquals("2h07m", ConduitCommands.age(TimeUnit.MINUTES.toNanos(127)));
    }
}
