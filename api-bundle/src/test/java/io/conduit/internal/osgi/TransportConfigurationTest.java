package io.conduit.internal.osgi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;

import io.conduit.internal.transport.DiagnosticsReport;
import io.conduit.internal.transport.RecordingLogger;
import io.conduit.internal.transport.TransportRegistry;
import io.conduit.transport.Availability;
import io.conduit.transport.TransportSelection;
import org.junit.jupiter.api.Test;

/** The ManagedService of PID io.conduit.transport, called directly (no framework, no Configuration Admin). */
class TransportConfigurationTest {

    private final TransportRegistry registry = TestProviders.registry(
            TestProviders.provider("alpha", false, 30, Availability.available()),
            TestProviders.provider("beta", false, 20, Availability.available()),
            TestProviders.provider("gone", true, 100, Availability.unavailable(new UnsatisfiedLinkError("no lib"))));
    private final RecordingLogger log = new RecordingLogger();
    private final TransportConfiguration binding = new TransportConfiguration(registry, log);

    private static Dictionary<String, Object> props(Object... kv) {
        Dictionary<String, Object> d = new Hashtable<>();
        for (int i = 0; i < kv.length; i += 2) {
            d.put((String) kv[i], kv[i + 1]);
        }
        return d;
    }

    @Test
    void transportPropertyOverridesAndDeletionReverts() {
        binding.updated(props("transport", "beta"));
        assertEquals("beta", registry.selected().name());
        assertEquals(TransportSelection.PreferenceSource.OVERRIDE, registry.selection().preferenceSource());

        binding.updated(null);
        assertNull(registry.preferenceOverride());
        assertEquals("alpha", registry.selected().name());
    }

    /**
     * FileInstall applies a changed file only once it saw it unchanged across two polls, so changes made less than
     * about two seconds apart were skipped without a trace: each applied configuration is now one INFO line naming
     * the file, both values and the selection, as deleting one already was.
     */
    @Test
    void eachAppliedConfigurationIsOneInfoLineNamingTheFileTheValuesAndTheSelection() {
        binding.updated(props("transport", "beta", "felix.fileinstall.filename", "file:/gw/conf/io.conduit.transport.cfg"));
        binding.updated(props("transport", "alpha", "strict", "true"));
        binding.updated(props("transport", "gone", "strict", "true"));
        String strictFailure = registry.selection().reason();
        binding.updated(null);
        assertEquals(List.of("configuration io.conduit.transport applied (file:/gw/conf/io.conduit.transport.cfg):"
                        + " transport='beta', strict=system property conduit.transport.strict; selected: beta",
                "configuration io.conduit.transport applied: transport='alpha', strict=true; selected: alpha",
                "configuration io.conduit.transport applied: transport='gone', strict=true; selected: none ("
                        + strictFailure + ")",
                "configuration io.conduit.transport deleted; conduit.transport and conduit.transport.strict apply"
                        + " again"), log.at(System.Logger.Level.INFO));
    }

    /**
     * At start-up Configuration Admin delivers the configuration before the transport bundles register their
     * providers: the applied line said {@code selected: none (no transport is registered ...)} ahead of a banner that
     * named the transport then selected. It now waits for the framework to start and names the real selection.
     */
    @Test
    void atStartUpTheAppliedLineWaitsForTheFrameworkAndNamesTheRealSelection() {
        TransportRegistry empty = TestProviders.registry();
        RecordingLogger lines = new RecordingLogger();
        empty.deferUnknownNameWarnings(); // as the API bundle's activator does while the framework starts
        new TransportConfiguration(empty, lines).updated(props("transport", "beta"));
        assertEquals(List.of(), lines.at(System.Logger.Level.INFO), "nothing before the transports are registered");
        empty.register(TestProviders.provider("beta", false, 20, Availability.available()));
        empty.frameworkStarted();
        assertEquals(List.of("configuration io.conduit.transport applied: transport='beta', strict=system property "
                + "conduit.transport.strict; selected: beta"), lines.at(System.Logger.Level.INFO));
    }

    @Test
    void anUnknownKeyIsOneWarningNamingTheLikelyKeyAndTheKnownOnesWhileTheRestApplies() {
        binding.updated(props("trasnport", "beta", "strict", "false", "Strict", "true", "colour", "red",
                "service.pid", "io.conduit.transport", "felix.fileinstall.filename", "file:/x/io.conduit.transport.cfg"));
        assertEquals(List.of("configuration io.conduit.transport: unknown keys 'Strict' (did you mean 'strict'?), "
                + "'colour', 'trasnport' (did you mean 'transport'?) ignored; known keys: transport, strict (the other "
                + "values were applied)"), log.at(System.Logger.Level.WARNING));
        assertEquals(Boolean.FALSE, registry.strictOverride(), "the known key applies");
        assertNull(registry.preferenceOverride(), "a misspelt key does not");
        assertNull(registry.rejectedConfiguration());
        log.records.clear();
        binding.updated(props("transport", "beta", "service.pid", "io.conduit.transport"));
        assertEquals(List.of(), log.at(System.Logger.Level.WARNING), "Configuration Admin's own keys are not unknown");
    }

    @Test
    void aByteOrderMarkReadAsPartOfTheFirstKeyIsNamedWithWhatToDo() {
        // FileInstall reads a .cfg file as ISO-8859-1: a UTF-8 BOM becomes three characters of the first key
        binding.updated(props("\u00EF\u00BB\u00BFtransport", "beta", "strict", "true"));
        assertEquals(List.of("configuration io.conduit.transport: unknown key '<BOM>transport' (the file "
                + "starts with a UTF-8 byte order mark, read as part of its first key 'transport': save the file as "
                + "UTF-8 without a byte order mark) ignored; known keys: transport, strict (the other values were "
                + "applied)"), log.at(System.Logger.Level.WARNING));
        assertNull(registry.preferenceOverride(), "the key with the mark is not 'transport'");
        log.records.clear();
        binding.updated(props("\u00EF\u00BB\u00BFtransport", "beta"));
        assertEquals(List.of("configuration io.conduit.transport: unknown key '<BOM>transport' (the file "
                + "starts with a UTF-8 byte order mark, read as part of its first key 'transport': save the file as "
                + "UTF-8 without a byte order mark) ignored; known keys: transport, strict (it sets neither, so nothing"
                + " changed)"), log.at(System.Logger.Level.WARNING));
        assertEquals("transport", TransportConfiguration.withoutByteOrderMark("\uFEFFtransport"));
        assertNull(TransportConfiguration.withoutByteOrderMark("transport"));
    }

    @Test
    void arraysAndCollectionsAreJoinedAsAnOrderedList() {
        binding.updated(props("transport", new String[] {"gone", "beta"}));
        assertEquals("gone,beta", registry.preferenceOverride());
        assertEquals("beta", registry.selected().name());
        binding.updated(props("transport", List.of("alpha")));
        assertEquals("alpha", registry.preferenceOverride());
    }

    @Test
    void blankOrMissingTransportUsesTheSystemProperty() {
        binding.updated(props("transport", "beta"));
        binding.updated(props("transport", "  "));
        assertNull(registry.preferenceOverride());
        binding.updated(props("service.pid", "io.conduit.transport"));
        assertNull(registry.preferenceOverride());
    }

    @Test
    void strictOverridesTheSystemPropertyUntilDeleted() {
        binding.updated(props("transport", "gone", "strict", "TRUE"));
        TransportSelection s = registry.selection();
        assertTrue(s.strict());
        assertFalse(s.selected().isPresent(), s.explain());
        assertTrue(s.failure().getCause() instanceof UnsatisfiedLinkError, s.explain());

        binding.updated(props("transport", "gone", "strict", Boolean.FALSE));
        assertEquals("alpha", registry.selected().name(), "falls back to the highest-ranked available");

        binding.updated(null);
        assertNull(registry.strictOverride());
        assertFalse(registry.selection().strict());
    }

    @Test
    void aBadValueRejectsTheWholeConfigurationInOneLogLineAndKeepsThePreviousSettings() {
        binding.updated(props("transport", "beta"));
        log.records.clear();

        binding.updated(props("transport", "alpha", "strict", "maybe")); // does not throw: no stack trace in CM's log
        assertEquals("beta", registry.preferenceOverride(), "the valid key of a bad configuration is not applied");
        assertNull(registry.strictOverride());
        assertEquals("beta", registry.selected().name());

        assertEquals(1, log.records.size(), log.records.toString());
        String line = log.at(System.Logger.Level.ERROR).get(0);
        assertEquals("configuration io.conduit.transport REJECTED, none of its values applied: property strict='maybe'"
                + " is not a boolean; allowed values: true, false (any case), or no value to use system property"
                + " conduit.transport.strict. Still in effect, unchanged: transport='beta', system property"
                + " conduit.transport.strict. Correct the configuration, or delete it to return to the system"
                + " properties", line);
        assertFalse(line.contains("\n") || line.contains("[thrown:"), "one line, no stack trace: " + line);

        String rejected = registry.rejectedConfiguration();
        assertTrue(rejected.startsWith("configuration io.conduit.transport REJECTED, none of its values applied: "
                + "property strict='maybe' is not a boolean"), rejected);
        assertTrue(DiagnosticsReport.render(registry).contains("\nSelection\n  " + rejected + "\n"),
                DiagnosticsReport.render(registry));
        assertTrue(new ConduitCommands(registry).transports().contains("\n" + rejected + "\n"),
                new ConduitCommands(registry).transports());

        binding.updated(props("transport", "alpha", "strict", "false"));
        assertEquals("alpha", registry.preferenceOverride(), "a valid configuration replaces the rejected one");
        assertEquals(Boolean.FALSE, registry.strictOverride());
        assertNull(registry.rejectedConfiguration());
        assertFalse(DiagnosticsReport.render(registry).contains("REJECTED"), DiagnosticsReport.render(registry));
        assertFalse(new ConduitCommands(registry).transports().contains("REJECTED"));
        assertEquals(1, log.at(System.Logger.Level.ERROR).size(), log.records.toString());
    }

    @Test
    void aMalformedPreferenceIsRejectedNamingKeyValueAndTheSyntaxAndTheSystemPropertiesStay() {
        binding.updated(props("transport", "epoll,,nio"));
        assertNull(registry.preferenceOverride());
        assertEquals("alpha", registry.selected().name());
        String line = log.at(System.Logger.Level.ERROR).get(0);
        assertTrue(line.startsWith("configuration io.conduit.transport REJECTED, none of its values applied: "
                + "property transport='epoll,,nio' has an empty entry; expected 'auto' or an ordered"
                + " comma-separated list of transport names, e.g. 'epoll,nio'."), line);
        assertTrue(line.contains("Still in effect, unchanged: system properties conduit.transport and"
                + " conduit.transport.strict."), line);
        assertTrue(line.startsWith(registry.rejectedConfiguration() + ". Still in effect"), line);
    }

    @Test
    void everyBadValueIsNamedInTheOneLine() {
        binding.updated(props("transport", List.of("auto", "nio"), "strict", "yes"));
        assertEquals(1, log.records.size(), log.records.toString());
        String line = log.at(System.Logger.Level.ERROR).get(0);
        assertTrue(line.contains("property transport='auto,nio' mixes 'auto' with transport names")
                && line.contains("; property strict='yes' is not a boolean"), line);
    }

    @Test
    void deletingTheConfigurationOrStoppingClearsTheRejection() {
        binding.updated(props("strict", "maybe"));
        assertTrue(registry.rejectedConfiguration() != null);
        binding.updated(null);
        assertNull(registry.rejectedConfiguration());
        assertEquals(List.of(), log.at(System.Logger.Level.INFO), "nothing was applied, so nothing is reverted");

        binding.updated(props("transport", "beta"));
        binding.updated(props("transport", "nio,"));
        assertTrue(registry.rejectedConfiguration() != null);
        binding.close(); // the API bundle stops
        assertNull(registry.rejectedConfiguration());
        assertNull(registry.preferenceOverride());
    }

    /**
     * The gateway's banner said "0 problem(s)" under a rejected configuration: it counts the service property
     * {@code conduit.transport.configuration.problem}, which holds the rejection while it lasts.
     */
    @Test
    void aRejectedConfigurationIsTheProblemUntilAValidOneReplacesIt() {
        binding.updated(props("transport", "beta", "strict", "yes"));
        assertTrue(binding.problem().startsWith("configuration io.conduit.transport REJECTED"), binding.problem());
        assertTrue(binding.problem().contains("strict='yes' is not a boolean"), binding.problem());
        binding.updated(props("transport", "beta", "strict", "true"));
        assertNull(binding.problem());
        binding.updated(props("strict", "maybe"));
        assertTrue(binding.problem().contains("REJECTED"), binding.problem());
        binding.updated(null);
        assertNull(binding.problem());
    }

    @Test
    void anIgnoredKeyIsTheProblem() {
        binding.updated(props("transprot", "beta"));
        assertEquals("configuration io.conduit.transport: unknown key 'transprot' (did you mean 'transport'?) ignored;"
                + " known keys: transport, strict (it sets neither, so nothing changed)", binding.problem());
        binding.updated(props("transport", "beta"));
        assertNull(binding.problem());
    }

    /** The service property the gateway's banner reads follows the problem; a registration made later gets it too. */
    @Test
    @SuppressWarnings("unchecked")
    void theProblemIsAPropertyOfTheRegisteredService() {
        List<Dictionary<String, ?>> set = new java.util.ArrayList<>();
        org.osgi.framework.ServiceRegistration<?> reg = (org.osgi.framework.ServiceRegistration<?>)
                java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
                        new Class<?>[] {org.osgi.framework.ServiceRegistration.class}, (p, m, a) -> {
                            if (m.getName().equals("setProperties")) {
                                set.add((Dictionary<String, ?>) a[0]);
                            }
                            return null;
                        });
        TransportConfiguration[] bound = new TransportConfiguration[1];
        org.osgi.framework.BundleContext context = (org.osgi.framework.BundleContext)
                java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
                        new Class<?>[] {org.osgi.framework.BundleContext.class}, (p, m, a) -> {
                            bound[0] = (TransportConfiguration) a[1];
                            return reg;
                        });
        TransportConfiguration.register(context, registry);
        Dictionary<String, ?> first = set.get(set.size() - 1);
        assertEquals("io.conduit.transport", first.get("service.pid"));
        assertNull(first.get(TransportConfiguration.PROBLEM_PROPERTY));
        bound[0].updated(props("strict", "yes"));
        Dictionary<String, ?> rejected = set.get(set.size() - 1);
        assertEquals("io.conduit.transport", rejected.get("service.pid"));
        assertTrue(String.valueOf(rejected.get(TransportConfiguration.PROBLEM_PROPERTY)).contains("REJECTED"));
        bound[0].updated(props("strict", "true"));
        assertNull(set.get(set.size() - 1).get(TransportConfiguration.PROBLEM_PROPERTY));
    }
}
