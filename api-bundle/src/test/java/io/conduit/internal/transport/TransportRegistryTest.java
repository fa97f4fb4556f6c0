package io.conduit.internal.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import io.conduit.internal.config.ConduitProperties;
import io.conduit.transport.Transport;
import io.conduit.transport.TransportChangeListener;
import io.conduit.transport.UnavailableTransportException;
import io.conduit.transport.spi.TransportProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TransportRegistryTest {

    /** Mutable system-property stand-in. */
    private final Map<String, String> props = new ConcurrentHashMap<>();
    private final RecordingLogger log = new RecordingLogger();
    private final TransportRegistry registry = new TransportRegistry(problems -> List.of(),
            () -> ConduitProperties.of(new HashMap<>(props)), log);

    private static FakeProvider epollDown() {
        return FakeProvider.unavailable("epoll", true, 100, "libconduit_epoll_x86_64.so not found",
                "fragment: none", "java.library.path: none");
    }

    /** Records (previous, current) names of every change event. */
    private static final class Recorder implements TransportChangeListener {
        final List<String> events = new CopyOnWriteArrayList<>();

        @Override
        public void transportChanged(Transport previous, Transport current) {
            events.add((previous == null ? "-" : previous.name()) + ">" + (current == null ? "-" : current.name()));
        }
    }

    @Test
    void selectionIsCachedSoProvidersAreAskedOncePerChange() {
        FakeProvider nio = FakeProvider.available("nio", false, 10);
        registry.register(nio);
        for (int i = 0; i < 10; i++) {
            assertEquals("nio", registry.selected().name());
            registry.selection();
        }
        assertEquals(1, nio.availabilityCalls.get());
        assertEquals(1, nio.probes.get());
        assertSame(nio.transport, registry.get("nio"));
    }

    @Test
    void fallbackIsLoggedOnceNotOncePerCall() {
        registry.register(epollDown());
        registry.register(FakeProvider.available("nio", false, 10));
        for (int i = 0; i < 5; i++) {
            assertEquals("nio", registry.selected().name());
        }
        registry.register(FakeProvider.available("nio-vthread", false, 5)); // recomputes: same fallback
        registry.selected();
        List<String> warnings = log.warnings();
        assertEquals(1, warnings.size(), warnings.toString());
        String w = warnings.get(0);
        assertTrue(w.contains("'epoll'") && w.contains("'nio'") && w.contains("libconduit_epoll_x86_64.so"), w);
        // A different fallback is a new warning.
        registry.setPreference("nio-vthread,nio");
        registry.setPreference("epoll,nio-vthread");
        assertEquals(2, log.warnings().size(), log.warnings().toString());
    }

    @Test
    void listenersSeeEveryChangeWithPreviousAndCurrent() {
        Recorder rec = new Recorder();
        registry.addListener(rec);
        FakeProvider nio = FakeProvider.available("nio", false, 10);
        FakeProvider epoll = FakeProvider.available("epoll", true, 100);
        registry.register(nio);
        registry.register(epoll);
        registry.register(FakeProvider.unavailable("kqueue", true, 90, "not BSD")); // no change
        registry.setPreference("nio");
        registry.setPreference(null);
        registry.unregister(epoll);
        registry.unregister(nio);
        assertEquals(List.of("->nio", "nio>epoll", "epoll>nio", "nio>epoll", "epoll>nio", "nio>-"), rec.events);
        registry.removeListener(rec);
        registry.register(nio);
        assertEquals(6, rec.events.size());
    }

    @Test
    void providerListenersHearEveryRegistrationAndRemovalAfterTheChangeEvents() {
        Recorder rec = new Recorder();
        List<String> hooks = new CopyOnWriteArrayList<>();
        registry.addListener(rec);
        Runnable hook = () -> hooks.add(rec.events.size() + ":" + registry.providers().size());
        registry.addProviderListener(hook);
        FakeProvider nio = FakeProvider.available("nio", false, 10);
        FakeProvider kqueue = FakeProvider.unavailable("kqueue", true, 90, "not BSD");
        registry.register(nio);          // selection changes: the event comes first
        registry.register(kqueue);       // no selection change: only the hook
        registry.unregister(kqueue);
        assertFalse(registry.unregister(kqueue)); // nothing removed: no hook
        registry.setPreference("nio");   // not a provider change: no hook
        assertEquals(List.of("1:1", "1:2", "1:1"), hooks);
        registry.removeProviderListener(hook);
        registry.unregister(nio);
        assertEquals(3, hooks.size());
    }

    @Test
    void aChangedSystemPropertyIsNoticedAndAnnounced() {
        Recorder rec = new Recorder();
        registry.register(FakeProvider.available("nio", false, 10));
        registry.register(FakeProvider.available("epoll", true, 100));
        registry.addListener(rec);
        assertEquals("epoll", registry.selected().name());
        props.put("conduit.noNative", "true");
        assertEquals("nio", registry.selected().name());
        assertEquals(List.of("epoll>nio"), rec.events);
    }

    @Test
    void aListenerMayCallBackIntoTheRegistry() {
        List<String> seen = new ArrayList<>();
        registry.addListener((previous, current) -> {
            seen.add(registry.selected().name());
            if (current.name().equals("epoll")) {
                registry.setPreference("nio"); // nested change: delivered after this call returns
            }
        });
        registry.register(FakeProvider.available("epoll", true, 100));
        registry.register(FakeProvider.available("nio", false, 10));
        // registering epoll announces epoll; the listener then prefers nio; registering nio changes nothing more.
        assertEquals(List.of("epoll", "nio"), seen);
    }

    @Test
    void selectedThrowsAFreshExceptionWithTheCause() {
        FakeProvider epoll = epollDown();
        registry.register(epoll);
        props.put("conduit.transport.strict", "true");
        UnavailableTransportException a = assertThrows(UnavailableTransportException.class, registry::selected);
        UnavailableTransportException b = assertThrows(UnavailableTransportException.class, registry::selected);
        assertFalse(a == b);
        assertSame(epoll.availability().unavailabilityCause(), a.getCause());
        assertEquals(2, a.getCause().getSuppressed().length);
    }

    @Test
    void getNamesTheRegisteredTransportsOrTheCause() {
        registry.register(FakeProvider.available("nio", false, 10));
        registry.register(FakeProvider.available("epoll", true, 100));
        UnavailableTransportException unknown = assertThrows(UnavailableTransportException.class,
                () -> registry.get("kqueue"));
        assertTrue(unknown.getMessage().contains("kqueue") && unknown.getMessage().contains("epoll, nio"),
                unknown.getMessage());
        props.put("conduit.noNative", "true");
        UnavailableTransportException disabled = assertThrows(UnavailableTransportException.class,
                () -> registry.get("epoll"));
        assertTrue(disabled.getCause().getMessage().contains("conduit.noNative"), disabled.getMessage());
        assertEquals("nio", registry.get("nio").name());
    }

    @Test
    void malformedOverrideIsRejectedAtOnce() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> registry.setPreference("epoll,,nio"));
        assertTrue(e.getMessage().contains("epoll,,nio"), e.getMessage());
        assertNull(registry.preferenceOverride());
    }

    @Test
    void registrationIsByIdentityAndTheFirstProviderOfANameWins() {
        FakeProvider first = FakeProvider.available("nio", false, 10);
        FakeProvider second = FakeProvider.available("nio", false, 50);
        assertTrue(registry.register(first));
        assertFalse(registry.register(first));
        assertTrue(registry.register(second));
        assertEquals(List.of(first), registry.providers());
        assertTrue(registry.problems().stream().anyMatch(p -> p.contains("ignored")), registry.problems().toString());
        assertTrue(registry.unregister(first));
        assertEquals(List.of(second), registry.providers());
        assertFalse(registry.unregister(first));
    }

    @Test
    void theSameProviderClassRegisteredAndDiscoveredIsOneProviderNotAProblem() {
        FakeProvider discovered = FakeProvider.available("nio", false, 10);
        TransportRegistry r = new TransportRegistry(problems -> List.of(discovered),
                () -> ConduitProperties.of(Map.of()));
        FakeProvider service = FakeProvider.available("nio", false, 10); // same class, same loader
        r.register(service);
        assertSame(service.transport, r.selected());
        assertEquals(List.of(), r.problems());
        // A different class claiming the name is still a conflict.
        FakeProvider other = new FakeProvider("nio", false, 10, io.conduit.transport.Availability::available) { };
        TransportRegistry r2 = new TransportRegistry(problems -> List.of(other),
                () -> ConduitProperties.of(Map.of()));
        r2.register(FakeProvider.available("nio", false, 10));
        assertEquals(1, r2.problems().size(), r2.problems().toString());
        assertTrue(r2.problems().get(0).contains("is ignored"), r2.problems().toString());
    }

    @Test
    void aServiceIsTheOnlyInstanceKeptOfItsProviderAndLeavesNothingBehindWhenItGoes() {
        // The same provider class instantiated by someone else first (e.g. from the bundle's META-INF/services),
        // then provided by its bundle as a service: one provider, the service, nothing reported.
        FakeProvider early = FakeProvider.available("nio", false, 10);
        FakeProvider service = FakeProvider.available("nio", false, 10);
        FakeProvider epoll = FakeProvider.available("epoll", true, 100);
        assertTrue(registry.register(early));
        assertTrue(registry.registerService(epoll));
        assertTrue(registry.registerService(service));
        assertEquals(List.of(), registry.problems());
        assertEquals(List.of(epoll, service), registry.providers());
        // A later programmatic copy of the service's provider is refused, not kept behind it.
        assertFalse(registry.register(FakeProvider.available("epoll", true, 100)));
        assertEquals(List.of(), registry.problems());
        // The bundle stops: its transport is gone, no stand-in takes its place.
        assertTrue(registry.unregister(epoll));
        assertEquals(List.of(service), registry.providers());
        assertEquals("nio", registry.selected().name());
        assertTrue(registry.unregister(service));
        assertEquals(List.of(), registry.providers());
        assertFalse(registry.unregister(early), "the early instance was dropped when the service came");
        // A different class claiming a service's name is still a conflict, reported.
        FakeProvider other = new FakeProvider("nio", false, 10, io.conduit.transport.Availability::available) { };
        assertTrue(registry.registerService(FakeProvider.available("nio", false, 10)));
        assertTrue(registry.register(other));
        assertEquals(1, registry.problems().size(), registry.problems().toString());
        assertTrue(registry.problems().get(0).contains("is ignored"), registry.problems().toString());
    }

    @Test
    void anUnknownNameIsWarnedOncePerPropertyAndNameWhateverIsRegistered() {
        props.put(ConduitProperties.TRANSPORT, "bogus");
        registry.selection();
        registry.register(FakeProvider.available("epoll", true, 100));
        registry.register(FakeProvider.available("nio", false, 10));
        registry.selection();
        assertEquals(1, log.warnings().size(), log.warnings().toString());
        assertTrue(log.warnings().get(0).startsWith("unknown transport bogus in conduit.transport='bogus'"),
                log.warnings().toString());
        props.put(ConduitProperties.TRANSPORT, "other");
        registry.selection();
        assertEquals(2, log.warnings().size(), log.warnings().toString());
    }

    @Test
    void unknownNameWarningsWaitUntilTheFrameworkStartedAndOnlyIfStillUnknown() {
        props.put(ConduitProperties.TRANSPORT, "nio");
        registry.deferUnknownNameWarnings();
        registry.selection();
        registry.register(FakeProvider.available("epoll", true, 100));
        registry.register(FakeProvider.available("nio", false, 10));
        assertEquals("nio", registry.selected().name());
        registry.frameworkStarted();
        assertEquals(List.of(), log.warnings());

        TransportRegistry r = new TransportRegistry(problems -> List.of(),
                () -> ConduitProperties.of(Map.of(ConduitProperties.TRANSPORT, "bogus")), log);
        r.deferUnknownNameWarnings();
        r.register(FakeProvider.available("epoll", true, 100));
        r.register(FakeProvider.available("nio", false, 10));
        assertEquals(List.of(), log.warnings());
        r.frameworkStarted();
        r.frameworkStarted();
        r.selection();
        assertEquals(1, log.warnings().size(), log.warnings().toString());
        assertTrue(log.warnings().get(0).contains("unknown transport bogus"), log.warnings().toString());
    }

    @Test
    void aProviderThatWentAwayIsNotRegisteredNowNotUnknownAndIsWarnedAgainEachTimeItGoes() {
        FakeProvider epoll = FakeProvider.available("epoll", true, 100);
        registry.register(epoll);
        registry.register(FakeProvider.available("nio", false, 10));
        registry.setPreference("epoll");
        assertEquals(List.of(), log.warnings());

        registry.unregister(epoll); // conduit:use epoll, then stop the epoll bundle
        String gone = "transport 'epoll' in the transport preference override='epoll' is not registered now (its"
                + " bundle stopped?); registered transports: nio; skipped until it is registered again";
        assertEquals(List.of(gone), log.warnings());
        assertEquals("nio", registry.selected().name());
        String reason = registry.selection().reason();
        assertTrue(reason.contains("(epoll: not registered now)"), reason);
        registry.register(FakeProvider.available("nio-vthread", false, 5));
        registry.selection();
        assertEquals(List.of(gone), log.warnings(), "once while it stays away");

        registry.register(epoll);
        assertEquals("epoll", registry.selected().name());
        registry.unregister(epoll);
        assertEquals(List.of(gone, gone.replace("nio;", "nio, nio-vthread;")), log.warnings(), "it went away again");
        assertTrue(log.warnings().stream().noneMatch(w -> w.contains("unknown")), log.warnings().toString());
    }

    @Test
    void mutedWarningsAreNeitherLoggedNorRememberedSoTheyComeWhenStillTrueLater() {
        FakeProvider epoll = FakeProvider.available("epoll", true, 100);
        FakeProvider nio = FakeProvider.available("nio", false, 10);
        registry.register(epoll);
        registry.register(nio);
        props.put(ConduitProperties.TRANSPORT, "epoll,nio");
        registry.muteWarnings(); // the framework or the API bundle stops
        registry.unregister(epoll);
        registry.unregister(nio);
        registry.setPreference("bogus");
        registry.setPreference(null);
        assertEquals(List.of(), log.records);

        registry.unmuteWarnings();
        assertEquals(List.of(), log.records, "unmuting logs nothing by itself");
        registry.register(FakeProvider.available("nio-vthread", false, 5));
        assertEquals(2, log.warnings().size(), log.warnings().toString());
        assertTrue(log.warnings().get(0).startsWith("transport 'epoll' in conduit.transport='epoll,nio' is not"
                + " registered now"), log.warnings().toString());
    }

    @Test
    void registrationsWhileDeferredDoNotReportTransportsThatComeLater() {
        // The API bundle restarts in a running framework: its tracker adds the providers one at a time.
        FakeProvider epoll = FakeProvider.available("epoll", true, 100);
        FakeProvider nio = FakeProvider.available("nio", false, 10);
        registry.register(epoll);
        registry.register(nio);
        props.put(ConduitProperties.TRANSPORT, "epoll,nio");
        registry.unregister(epoll);
        registry.unregister(nio);
        log.records.clear();
        registry.deferUnknownNameWarnings();
        registry.register(nio);
        registry.register(epoll);
        registry.frameworkStarted();
        assertEquals(List.of(), log.records);
    }

    @Test
    void registeredProvidersTakePrecedenceOverDiscoveredOnes() {
        FakeProvider discovered = FakeProvider.available("nio", false, 10);
        TransportRegistry r = new TransportRegistry(problems -> List.of(discovered),
                () -> ConduitProperties.of(Map.of()));
        assertEquals(List.of(discovered), r.providers());
        FakeProvider registered = FakeProvider.available("nio", false, 10);
        r.register(registered);
        assertSame(registered.transport, r.selected());
    }

    @Test
    void serviceLoaderDiscoveryFindsProvidersAndReportsBrokenEntries(@TempDir Path dir) throws IOException {
        Path services = dir.resolve("services");
        Files.writeString(services, FakeProvider.Discoverable.class.getName() + "\n"
                + "io.conduit.example.NoSuchProvider\n", StandardCharsets.UTF_8);
        URL servicesUrl = services.toUri().toURL();
        ClassLoader loader = new ClassLoader(getClass().getClassLoader()) {
            @Override
            public Enumeration<URL> getResources(String name) throws IOException {
                if (name.equals("META-INF/services/" + TransportProvider.class.getName())) {
                    return Collections.enumeration(List.of(servicesUrl));
                }
                return super.getResources(name);
            }
        };
        List<String> problems = new ArrayList<>();
        List<TransportProvider> found = TransportRegistry.discover(List.of(loader, loader), problems);
        assertEquals(1, found.size(), "deduplicated by name across loaders");
        assertEquals("discovered", found.get(0).name());
        assertTrue(problems.stream().anyMatch(p -> p.contains("NoSuchProvider")), problems.toString());

        TransportRegistry r = new TransportRegistry(p -> TransportRegistry.discover(List.of(loader), p),
                () -> ConduitProperties.of(Map.of()));
        assertEquals("discovered", r.selected().name());
        assertTrue(r.problems().stream().anyMatch(p -> p.contains("NoSuchProvider")), r.problems().toString());
    }
}
