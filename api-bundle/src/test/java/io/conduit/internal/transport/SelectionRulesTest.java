package io.conduit.internal.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.conduit.internal.config.ConduitProperties;
import io.conduit.internal.config.ConduitPropertiesTest;
import io.conduit.transport.TransportSelection;
import io.conduit.transport.TransportSelection.Outcome;
import io.conduit.transport.TransportSelection.PreferenceSource;
import io.conduit.transport.UnavailableTransportException;
import org.junit.jupiter.api.Test;

class SelectionRulesTest {

    private final FakeProvider epollUp = FakeProvider.available("epoll", true, 100);
    private final FakeProvider kqueueDown = FakeProvider.unavailable("kqueue", true, 90, "kqueue needs BSD");
    private final FakeProvider nio = FakeProvider.available("nio", false, 10);
    private final FakeProvider vthread = FakeProvider.available("nio-vthread", false, 5);

    private static ConduitProperties props(String... kv) {
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return ConduitProperties.of(m);
    }

    private static FakeProvider epollDown() {
        return FakeProvider.unavailable("epoll", true, 100, "libconduit_epoll_x86_64.so not found",
                "Bundle-NativeCode: no fragment", "java.library.path: not found", "META-INF/native: no resource");
    }

    private static TransportSelection select(ConduitProperties props, String override, FakeProvider... providers) {
        return SelectionRules.select(Arrays.asList(providers), props, override);
    }

    /** Like {@link #select(ConduitProperties, String, FakeProvider...)} after {@code formerly} were registered. */
    private static TransportSelection select(ConduitProperties props, String override, Set<String> formerly,
            FakeProvider... providers) {
        return SelectionRules.select(Arrays.asList(providers), props, override, formerly);
    }

    @Test
    void autoPicksNativeByRankingBeforeHigherRankedJavaTransports() {
        FakeProvider bigJava = FakeProvider.available("fast-java", false, 1000);
        TransportSelection s = select(props(), null, nio, bigJava, kqueueDown, epollUp);
        assertEquals("epoll", s.selectedName());
        assertEquals(PreferenceSource.DEFAULT, s.preferenceSource());
        assertEquals("auto", s.preference());
        assertEquals(List.of("epoll", "kqueue", "fast-java", "nio"),
                s.candidates().stream().map(TransportSelection.Candidate::name).toList());
        assertEquals(Outcome.SELECTED, s.candidate("epoll").orElseThrow().outcome());
        assertEquals(Outcome.UNAVAILABLE, s.candidate("kqueue").orElseThrow().outcome());
        assertTrue(s.candidate("kqueue").orElseThrow().reason().contains("kqueue needs BSD"));
        assertEquals(Outcome.NOT_CHOSEN, s.candidate("nio").orElseThrow().outcome());
        assertTrue(s.warnings().isEmpty(), s.warnings().toString());
        assertNull(s.failure());
    }

    @Test
    void autoChoosingTheOtherNativeTransportIsNotAFallback() {
        FakeProvider epoll = epollDown();
        FakeProvider kqueue = FakeProvider.available("kqueue", true, 90);
        TransportSelection s = select(props(), null, nio, epoll, kqueue);
        assertEquals("kqueue", s.selectedName());
        assertTrue(s.warnings().isEmpty(), s.warnings().toString());
    }

    @Test
    void autoFallbackFromAnUnavailableNativeTransportWarnsWithTheCause() {
        TransportSelection s = select(props(), null, nio, epollDown(), vthread);
        assertEquals("nio", s.selectedName());
        assertEquals(1, s.warnings().size());
        String w = s.warnings().get(0);
        assertTrue(w.contains("'epoll'") && w.contains("'nio'") && w.contains("libconduit_epoll_x86_64.so"), w);
    }

    @Test
    void explicitListIsAppliedInOrderWithWhitespaceAndCaseTolerated() {
        TransportSelection s = select(props("conduit.transport", " NIO , epoll "), null, epollUp, nio);
        assertEquals("nio", s.selectedName());
        assertEquals(PreferenceSource.SYSTEM_PROPERTY, s.preferenceSource());
        assertEquals(Outcome.NOT_CHOSEN, s.candidate("epoll").orElseThrow().outcome());
        assertTrue(s.reason().contains("first in conduit.transport"), s.reason());
    }

    @Test
    void explicitListFallsBackToTheNextAvailableTransportWithOneWarning() {
        FakeProvider epoll = epollDown();
        TransportSelection s = select(props("conduit.transport", "epoll,nio"), null, epoll, nio);
        assertEquals("nio", s.selectedName());
        assertEquals(1, s.warnings().size());
        String w = s.warnings().get(0);
        assertTrue(w.contains("'epoll'") && w.contains("'nio'") && w.contains("not found"), w);
    }

    @Test
    void transportsNotListedStillServeAsLastResort() {
        TransportSelection s = select(props("conduit.transport", "epoll"), null, epollDown(), nio);
        assertEquals("nio", s.selectedName());
        assertEquals(1, s.warnings().size());
    }

    @Test
    void unknownNameIsSkippedWithAWarningListingTheKnownNames() {
        TransportSelection s = select(props("conduit.transport", "epol,nio"), null, epollUp, nio);
        assertEquals("nio", s.selectedName());
        assertEquals(1, s.warnings().size());
        String w = s.warnings().get(0);
        assertTrue(w.contains("epol") && w.contains("registered transports: epoll, nio"), w);
    }

    /**
     * A typo of a registered name ({@code transport = iouring} in {@code io.conduit.transport.cfg}) is named with the
     * registered names and the one it is likely a typo of, as a mistyped configuration key is; a name like no
     * registered one gets no guess.
     */
    @Test
    void anUnknownNameCloseToARegisteredOneSuggestsIt() {
        FakeProvider ioUring = FakeProvider.available("io_uring", true, 50);
        TransportSelection s = select(props("conduit.transport", "iouring"), null, epollUp, ioUring, nio);
        assertEquals(List.of("unknown transport iouring in conduit.transport='iouring'; registered transports: epoll,"
                + " io_uring, nio (did you mean 'io_uring'?); skipped"), s.warnings());
        s = select(props("conduit.transport", "iouring,epol"), null, epollUp, ioUring, nio);
        assertEquals(List.of("unknown transports iouring, epol in conduit.transport='iouring,epol'; registered "
                + "transports: epoll, io_uring, nio (did you mean 'io_uring' for iouring, 'epoll' for epol?); skipped"),
                s.warnings());
        s = select(props("conduit.transport", "bogus"), null, epollUp, ioUring, nio);
        assertFalse(s.warnings().get(0).contains("did you mean"), s.warnings().toString());
    }

    @Test
    void aListedTransportThatWasRegisteredBeforeIsNotRegisteredNowNotUnknown() {
        TransportSelection s = select(props("conduit.transport", "epoll,nio"), null, Set.of("epoll", "nio"), nio);
        assertEquals("nio", s.selectedName());
        assertEquals(List.of("transport 'epoll' in conduit.transport='epoll,nio' is not registered now (its bundle"
                + " stopped?); registered transports: nio; skipped until it is registered again"), s.warnings());

        s = select(props(), "bogus,epoll", Set.of("epoll"), nio);
        assertEquals(List.of("unknown transport bogus in the transport preference override='bogus,epoll'; registered"
                + " transports: nio; skipped", "transport 'epoll' in the transport preference override='bogus,epoll'"
                + " is not registered now (its bundle stopped?); registered transports: nio; skipped until it is"
                + " registered again"), s.warnings());
    }

    @Test
    void aTransportNotRegisteredNowFailsInStrictModeSayingSo() {
        TransportSelection s = select(props("conduit.transport", "epoll", "conduit.transport.strict", "true"), null,
                Set.of("epoll"), nio);
        assertNull(s.selectedName());
        String m = s.failure().getMessage();
        assertTrue(m.contains("transport 'epoll' in conduit.transport='epoll' is not registered now (its bundle"
                + " stopped?); registered transports: nio (conduit.transport.strict=true)"), m);
        assertFalse(m.contains("unknown"), m);
    }

    @Test
    void theReasonSaysThePreferenceListsNoRegisteredTransportNotAuto() {
        TransportSelection s = select(props("conduit.transport", "bogus"), null, epollUp, nio);
        assertEquals("epoll", s.selectedName());
        assertEquals("no transport listed in conduit.transport='bogus' is registered (bogus: unknown), so the auto"
                + " order applies: highest-ranked available native transport", s.reason());
        assertEquals("selected: " + s.reason(), s.candidate("epoll").orElseThrow().reason());

        s = select(props(), "bogus", epollUp, nio);
        assertEquals("no transport listed in the transport preference override='bogus' is registered (bogus:"
                + " unknown), so the auto order applies: highest-ranked available native transport", s.reason());

        // conduit:use epoll, then the epoll bundle stopped: kqueue (native) is down, nio is chosen.
        s = select(props(), "epoll", Set.of("epoll"), kqueueDown, nio);
        assertEquals("nio", s.selectedName());
        assertEquals("no transport listed in the transport preference override='epoll' is registered (epoll: not"
                + " registered now), so the auto order applies: native transport 'kqueue' is unavailable, fell back"
                + " to 'nio': kqueue needs BSD", s.reason());

        s = select(props("conduit.transport", "epoll"), null, Set.of("epoll"), nio, vthread);
        assertEquals("no transport listed in conduit.transport='epoll' is registered (epoll: not registered now), so"
                + " the auto order applies: highest-ranked available transport; no native transport is registered",
                s.reason());

        s = select(props("conduit.transport", "bogus", "conduit.noNative", "true"), null, epollUp, nio);
        assertEquals("no transport listed in conduit.transport='bogus' is registered (bogus: unknown), so the auto"
                + " order applies: highest-ranked available transport; native transports are disabled by"
                + " conduit.noNative", s.reason());

        for (TransportSelection auto : List.of(select(props(), null, epollUp, nio),
                select(props("conduit.transport", "AUTO"), null, epollUp, nio))) {
            assertEquals("highest-ranked available native transport (auto)", auto.reason());
        }
    }

    @Test
    void theReasonNamesSkippedEntriesBeforeTheFirstRegisteredOne() {
        TransportSelection s = select(props("conduit.transport", "bogus,epoll,nio"), null, Set.of("epoll"), nio);
        assertEquals("nio", s.selectedName());
        assertEquals("first registered transport in conduit.transport='bogus,epoll,nio' (bogus: unknown; epoll: not"
                + " registered now)", s.reason());

        s = select(props("conduit.transport", "bogus,epoll,nio"), null, epollDown(), nio);
        assertTrue(s.reason().startsWith("preferred transport 'epoll' (first registered in"
                + " conduit.transport='bogus,epoll,nio'; bogus: unknown) is unavailable, fell back to 'nio': "),
                s.reason());

        s = select(props("conduit.transport", "epoll,nio"), null, epollUp, nio);
        assertEquals("first in conduit.transport='epoll,nio'", s.reason());
    }

    @Test
    void unknownNameFailsInStrictMode() {
        TransportSelection s = select(props("conduit.transport", "epol,nio", "conduit.transport.strict", "true"), null,
                epollUp, nio);
        assertNull(s.selectedName());
        UnavailableTransportException e = s.failure();
        assertInstanceOf(IllegalArgumentException.class, e.getCause());
        assertTrue(e.getMessage().contains("epol") && e.getMessage().contains("registered transports: epoll, nio"),
                e.getMessage());
    }

    @Test
    void strictModeFailsWithThePreferredTransportsOwnCauseAndItsLoadAttempts() {
        FakeProvider epoll = epollDown();
        TransportSelection s = select(props("conduit.transport", "epoll,nio", "conduit.transport.strict", "TRUE"),
                null, epoll, nio);
        assertNull(s.selectedName());
        assertTrue(s.strict());
        UnavailableTransportException e = s.failure();
        assertSame(epoll.availability().unavailabilityCause(), e.getCause());
        assertEquals(3, e.getCause().getSuppressed().length);
        assertTrue(e.getMessage().contains("'epoll'") && e.getMessage().contains("conduit.transport.strict=true"),
                e.getMessage());
        assertEquals(Outcome.NOT_CHOSEN, s.candidate("nio").orElseThrow().outcome());
    }

    @Test
    void strictModeWithAnAvailablePreferenceSelectsIt() {
        TransportSelection s = select(props("conduit.transport", "epoll,nio", "conduit.transport.strict", "true"),
                null, epollUp, nio);
        assertEquals("epoll", s.selectedName());
    }

    @Test
    void strictAutoFailsWhenNoRegisteredNativeTransportIsAvailable() {
        FakeProvider epoll = epollDown();
        TransportSelection s = select(props("conduit.transport.strict", "true"), null, epoll, kqueueDown, nio);
        UnavailableTransportException e = s.failure();
        assertNotNull(e);
        assertSame(epoll.availability().unavailabilityCause(), e.getCause());
        assertEquals(1, e.getSuppressed().length, "kqueue's cause is attached as suppressed");
    }

    @Test
    void noNativeDisablesNativeTransportsWithoutProbingThem() {
        FakeProvider epoll = FakeProvider.available("epoll", true, 100);
        TransportSelection s = select(props("conduit.noNative", "true", "conduit.transport.strict", "true"), null,
                epoll, nio);
        assertEquals("nio", s.selectedName(), "strict auto accepts nio when natives are disabled on purpose");
        assertEquals(0, epoll.probes.get());
        assertEquals(0, epoll.availabilityCalls.get());
        TransportSelection.Candidate c = s.candidate("epoll").orElseThrow();
        assertEquals(Outcome.UNAVAILABLE, c.outcome());
        assertTrue(c.availability().unavailabilityCause().getMessage().contains("conduit.noNative"), c.reason());
        assertTrue(s.warnings().isEmpty(), "disabling natives on purpose is not a fallback: " + s.warnings());
        assertTrue(s.reason().contains("conduit.noNative"), s.reason());
    }

    @Test
    void noNativeWithAnExplicitNativePreferenceInStrictModeFailsNamingTheProperty() {
        TransportSelection s = select(props("conduit.noNative", "true", "conduit.transport", "epoll",
                "conduit.transport.strict", "true"), null, epollUp, nio);
        assertTrue(s.failure().getCause().getMessage().contains("conduit.noNative"), s.failure().getMessage());
    }

    @Test
    void malformedBooleansFailTheSelectionNamingPropertyValueAndAllowedValues() {
        for (String property : List.of("conduit.transport.strict", "conduit.noNative")) {
            TransportSelection s = select(props(property, "yes"), null, epollUp, nio);
            assertNull(s.selectedName(), property);
            String m = s.failure().getMessage();
            assertTrue(m.contains(property) && m.contains("'yes'") && m.contains("true, false"), m);
            assertInstanceOf(IllegalArgumentException.class, s.failure().getCause());
            assertEquals(2, s.candidates().size(), "providers are still listed");
        }
    }

    @Test
    void everyMalformedPropertyFailsTheSelectionUpFrontNamingItsValue() {
        for (Map.Entry<String, String> bad : ConduitPropertiesTest.MALFORMED.entrySet()) {
            TransportSelection s = select(props(bad.getKey(), bad.getValue()), null, epollUp, nio);
            assertNull(s.selectedName(), bad.toString());
            String m = s.failure().getMessage();
            assertTrue(m.startsWith("no transport selected: invalid configuration: system property " + bad.getKey()
                    + "='" + bad.getValue() + "' is not "), m);
            assertInstanceOf(IllegalArgumentException.class, s.failure().getCause());
            assertEquals(2, s.candidates().size(), "providers are still listed");
            String explained = s.explain();
            assertEquals(explained.indexOf("='" + bad.getValue() + "'"), explained.lastIndexOf("='" + bad.getValue()
                    + "'"), "the malformed value is quoted once, not on every candidate's line:\n" + explained);
            for (TransportSelection.Candidate c : s.candidates()) {
                if (c.outcome() == Outcome.UNAVAILABLE) {
                    continue; // conduit.noNative=maybe: the native one is not probed, and says why
                }
                assertEquals("available, not chosen: no transport is chosen while the configuration is invalid",
                        c.reason(), explained);
            }
        }
    }

    @Test
    void severalMalformedPropertiesAreAllNamedInOneReason() {
        TransportSelection s = select(props("conduit.leakDetection", "bogus", "conduit.maxDirectMemory", "abc",
                "conduit.transport", "nio,,epoll"), null, epollUp, nio);
        String m = s.reason();
        assertTrue(m.contains("conduit.leakDetection='bogus'") && m.contains("conduit.maxDirectMemory='abc'")
                && m.contains("conduit.transport='nio,,epoll' has an empty entry"), m);
        assertEquals(2, s.failure().getCause().getSuppressed().length, m);
    }

    @Test
    void aMalformedPreferencePropertyIsIgnoredWhileAnOverrideTakesItsPlace() {
        TransportSelection s = select(props("conduit.transport", "nio,,epoll"), "nio", epollUp, nio);
        assertEquals("nio", s.selectedName());
    }

    @Test
    void malformedNoNativeDoesNotProbeNativeTransports() {
        FakeProvider epoll = FakeProvider.available("epoll", true, 100);
        select(props("conduit.noNative", "maybe"), null, epoll, nio);
        assertEquals(0, epoll.probes.get());
    }

    @Test
    void malformedPreferenceFailsTheSelection() {
        for (String bad : List.of("", " ", "epoll,,nio", "auto,nio", "ep oll", "nio,")) {
            TransportSelection s = select(props("conduit.transport", bad), null, nio);
            assertNull(s.selectedName(), bad);
            assertTrue(s.failure().getMessage().contains("conduit.transport"), s.failure().getMessage());
        }
    }

    @Test
    void overrideTakesThePlaceOfTheSystemProperty() {
        TransportSelection s = select(props("conduit.transport", "epoll"), "nio", epollUp, nio);
        assertEquals("nio", s.selectedName());
        assertEquals(PreferenceSource.OVERRIDE, s.preferenceSource());
        assertEquals("nio", s.preference());
    }

    @Test
    void noProviderSaysWhatToAdd() {
        TransportSelection s = select(props(), null);
        assertNull(s.selectedName());
        assertTrue(s.failure().getMessage().contains("no transport is registered")
                && s.failure().getMessage().contains("conduit-nio"), s.failure().getMessage());
        assertNull(s.failure().getCause());
    }

    @Test
    void nothingAvailableFailsWithThePreferredCauseAndTheOthersSuppressed() {
        FakeProvider epoll = epollDown();
        FakeProvider nioDown = FakeProvider.unavailable("nio", false, 10, "selector broken");
        TransportSelection s = select(props(), null, epoll, nioDown);
        UnavailableTransportException e = s.failure();
        assertSame(epoll.availability().unavailabilityCause(), e.getCause());
        assertEquals(1, e.getSuppressed().length);
        assertTrue(e.getMessage().contains("selector broken") && e.getMessage().contains("not found"),
                e.getMessage());
    }

    @Test
    void aProbeThatThrowsMakesTheTransportUnavailableWithThatException() {
        RuntimeException boom = new IllegalStateException("probe exploded");
        FakeProvider broken = new FakeProvider("epoll", true, 100, () -> {
            throw boom;
        });
        TransportSelection s = select(props(), null, broken, nio);
        assertEquals("nio", s.selectedName());
        assertSame(boom, s.candidate("epoll").orElseThrow().availability().unavailabilityCause());
    }

    @Test
    void explainListsEveryCandidate() {
        String text = select(props(), null, epollDown(), nio).explain();
        assertTrue(text.contains("epoll") && text.contains("nio") && text.contains("selected: nio"), text);
        assertFalse(text.contains("\tat "), "no stack traces: " + text);
    }

    /** A native provider that only a preference naming it may select (TransportProvider.autoSelectable). */
    private static FakeProvider namedOnly(String name, int ranking) {
        return new FakeProvider(name, true, ranking, io.conduit.transport.Availability::available) {
            @Override
            public boolean autoSelectable() {
                return false;
            }
        };
    }

    @Test
    void autoNeverSelectsAProviderThatIsNotAutoSelectable() {
        FakeProvider uring = namedOnly("io_uring", 50);
        TransportSelection s = select(props(), null, nio, uring, epollDown());
        assertEquals("nio", s.selectedName());
        assertEquals(Outcome.NOT_CHOSEN, s.candidate("io_uring").orElseThrow().outcome());
        // the missed native transport of auto is epoll, not the named-only one
        assertTrue(s.warnings().stream().anyMatch(w -> w.contains("epoll")), s.warnings().toString());
        assertEquals("epoll", select(props(), null, nio, uring, epollUp).selectedName());
    }

    @Test
    void aPreferenceNamingIt_selectsAProviderThatIsNotAutoSelectable() {
        FakeProvider uring = namedOnly("io_uring", 50);
        assertEquals("io_uring", select(props(ConduitProperties.TRANSPORT, "io_uring,nio"), null, nio, uring,
                epollUp).selectedName());
        assertEquals("io_uring", select(props(), "io_uring", nio, uring, epollUp).selectedName());
        // named after an unavailable one: still chosen; not named: skipped for the auto order after the list
        assertEquals("io_uring", select(props(ConduitProperties.TRANSPORT, "epoll,io_uring"), null, nio, uring,
                epollDown()).selectedName());
        assertEquals("nio", select(props(ConduitProperties.TRANSPORT, "epoll"), null, nio, uring, epollDown())
                .selectedName());
    }

    @Test
    void whenOnlyANamedOnlyProviderIsAvailable_autoFailsAndSaysWhy() {
        FakeProvider uring = namedOnly("io_uring", 50);
        TransportSelection s = select(props(), null, uring, epollDown());
        assertNull(s.selectedName());
        assertTrue(s.reason().contains("io_uring: available, but selected only when a preference names it"
                + " (conduit:use io_uring, or conduit.transport=io_uring)"), s.reason());
    }
}
