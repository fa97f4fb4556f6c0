package io.conduit.internal.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import io.conduit.internal.config.ConduitProperties;
import org.junit.jupiter.api.Test;

class DiagnosticsReportTest {

    @Test
    void withoutProvidersTheReportSaysSoPlainly() {
        TransportRegistry r = new TransportRegistry(p -> List.of(), () -> ConduitProperties.of(Map.of()),
                new RecordingLogger());
        String report = DiagnosticsReport.render(r);
        assertTrue(report.contains("\n  No transport is registered. Add conduit-nio (bundle io.conduit.nio"), report);
        assertTrue(report.contains("selected: none - no transport is registered"), report);
    }

    @Test
    void invalidSettingsAreReportedEvenWithoutProviders() {
        TransportRegistry r = new TransportRegistry(p -> List.of(),
                () -> ConduitProperties.of(Map.of("conduit.transport.strict", "maybe")), new RecordingLogger());
        String report = DiagnosticsReport.render(r);
        assertTrue(report.contains("selected: none - invalid configuration: system property conduit.transport.strict='maybe'"
                + " is not a boolean"), report);
    }

    @Test
    void everyPropertyIsListedWithItsValueOrDefaultAndAnInvalidOneIsMarked() {
        String name = ConduitProperties.EPOLL_BUSY_WAIT;
        String old = System.getProperty(name);
        System.setProperty(name, "maybe");
        try {
            TransportRegistry r = new TransportRegistry(p -> List.of(), ConduitProperties::fromSystem,
                    new RecordingLogger());
            String report = DiagnosticsReport.render(r);
            String section = report.substring(report.indexOf("\nSystem properties\n"),
                    report.indexOf("\nNative access"));
            List<String> lines = section.lines().filter(l -> l.startsWith("  conduit.")).toList();
            assertEquals(ConduitProperties.DEFAULTS.size(), lines.size(), section);
            int i = 0;
            for (Map.Entry<String, String> e : ConduitProperties.DEFAULTS.entrySet()) {
                String line = lines.get(i++);
                assertTrue(line.startsWith("  " + e.getKey() + " = "), line);
                if (!e.getKey().equals(name) && System.getProperty(e.getKey()) == null) {
                    assertTrue(line.contains(e.getValue()) && line.endsWith(" (default)"), line);
                }
            }
            assertTrue(section.contains("  conduit.epoll.busyWait = maybe (set; INVALID - see Selection)\n"), section);
            assertTrue(section.contains("  conduit.maxDirectMemory = 3/4 of the heap limit: "
                    + ConduitProperties.defaultMaxDirectMemory() + " bytes (default)\n")
                    || System.getProperty(ConduitProperties.MAX_DIRECT_MEMORY) != null, section);
            assertTrue(report.contains("selected: none - invalid configuration: system property conduit.epoll.busyWait="
                    + "'maybe' is not a boolean"), report);
        } finally {
            if (old == null) {
                System.clearProperty(name);
            } else {
                System.setProperty(name, old);
            }
        }
    }

    @Test
    void providersAreListedWithCausesAndEveryLoadAttempt() {
        TransportRegistry r = new TransportRegistry(p -> List.of(), () -> ConduitProperties.of(Map.of()),
                new RecordingLogger());
        r.register(FakeProvider.unavailable("epoll", true, 100, "libconduit_epoll_x86_64.so could not be loaded",
                "fragment io.conduit.epoll.linux.x86_64: not installed",
                "java.library.path [/usr/lib]: no libconduit_epoll_x86_64.so",
                "resource META-INF/native/libconduit_epoll_x86_64.so: not found"));
        r.register(FakeProvider.available("nio", false, 10));
        String report = DiagnosticsReport.render(r);
        assertTrue(report.contains("  epoll: native, ranking 100, UNAVAILABLE\n"
                + "      cause: java.lang.UnsatisfiedLinkError: libconduit_epoll_x86_64.so could not be loaded\n"
                + "        attempt: java.lang.UnsatisfiedLinkError: fragment io.conduit.epoll.linux.x86_64: not installed\n"
                + "        attempt: java.lang.UnsatisfiedLinkError: java.library.path [/usr/lib]: no libconduit_epoll_x86_64.so\n"
                + "        attempt: java.lang.UnsatisfiedLinkError: resource META-INF/native/libconduit_epoll_x86_64.so: not found\n"
                + "  nio: pure Java, ranking 10, available, SELECTED\n"), report);
        assertTrue(report.contains("  selected: nio - native transport 'epoll' is unavailable, fell back to 'nio'"),
                report);
        assertTrue(report.contains("  warning: native transport 'epoll' is unavailable"), report);
        if (Runtime.version().feature() >= 22) {
            assertTrue(report.contains("  transport epoll (unnamed module of " + FakeProvider.class.getName()),
                    "native access per native provider: " + report);
        } else {
            assertTrue(report.contains("  not needed: JDK " + Runtime.version().feature()), report);
        }
        assertFalse(report.contains("No transport is registered"), report);
    }

    @Test
    void nativeAccessIsClassifiedFromTheJvmOptionsNotOnlyTheModuleFlag() {
        assertEquals("enabled (--enable-native-access=ALL-UNNAMED)", DiagnosticsReport.nativeAccess(true,
                List.of("-Xmx1g", "--enable-native-access=ALL-UNNAMED"), "ALL-UNNAMED"));
        assertEquals("enabled (--enable-native-access=a,io.conduit.epoll)", DiagnosticsReport.nativeAccess(true,
                List.of("--enable-native-access=a,io.conduit.epoll"), "io.conduit.epoll"));
        String warned = "allowed with a warning (JDK default; add --enable-native-access=ALL-UNNAMED)";
        assertEquals(warned, DiagnosticsReport.nativeAccess(true, List.of(), "ALL-UNNAMED")); // flag true in warn mode
        assertEquals(warned, DiagnosticsReport.nativeAccess(false, List.of("--enable-native-access=m"),
                "ALL-UNNAMED"));
        assertEquals("denied (--illegal-native-access=deny); start the JVM with --enable-native-access=ALL-UNNAMED",
                DiagnosticsReport.nativeAccess(false, List.of("--illegal-native-access=deny"), "ALL-UNNAMED"));
        assertTrue(DiagnosticsReport.nativeAccess(false, null, "m").startsWith("NOT enabled"));
        assertEquals("enabled", DiagnosticsReport.nativeAccess(true, null, "m"));
    }
}
