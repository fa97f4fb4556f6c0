package io.conduit.internal.transport;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.conduit.internal.config.ConduitProperties;
import io.conduit.internal.config.PlatformInfo;
import io.conduit.internal.config.Suggestions;
import io.conduit.transport.Availability;
import io.conduit.transport.TransportSelection;
import io.conduit.transport.TransportSelection.Candidate;
import io.conduit.transport.TransportSelection.Outcome;
import io.conduit.transport.TransportSelection.PreferenceSource;
import io.conduit.transport.UnavailableTransportException;
import io.conduit.transport.spi.TransportProvider;

/**
 * The transport selection algorithm of docs/configuration.md as a pure function of the providers, a property snapshot
 * and the run-time override. It has no state and does not log; the registry logs the returned warnings.
 *
 * <p>Rules:
 * <ol>
 * <li><b>Order.</b> {@code auto}: native providers by descending ranking, then the others by descending
 *     ranking (ties by name). A list such as {@code epoll,nio}: the listed, registered transports in list
 *     order, then every other provider in {@code auto} order. The list is a preference, not a filter.</li>
 * <li><b>Names not registered</b> in a list: strict mode fails the selection (the message lists the registered
 *     names); otherwise they are skipped with a warning. A name that was registered before (the registry passes
 *     those) is "not registered now (its bundle stopped?)", one warning per name; any other name is "unknown", one
 *     warning for all of them. When no listed name is registered, the {@code auto} order applies and the reason
 *     says so, naming the skipped entries: it never reads as if the preference were {@code auto}.</li>
 * <li><b>{@code conduit.noNative=true}</b>: native providers are unavailable with a cause naming the property,
 *     and are not probed.</li>
 * <li>The first available provider in order wins. A provider that is not
 *     {@linkplain TransportProvider#autoSelectable() auto-selectable} wins only where the list names it.</li>
 * <li><b>Strict</b>, list: when the first listed registered transport is unavailable the selection fails and
 *     the exception's cause is that transport's unavailability cause. Strict, {@code auto}: when a native
 *     provider is registered and not disabled by {@code conduit.noNative}, but no native one is available, the
 *     selection fails with the highest-ranked native provider's cause (the others are suppressed on the
 *     exception). A transport that is preferred but not native never fails {@code auto}.</li>
 * <li><b>Fallback warnings</b> (not strict): list - the first listed transport is unavailable and another one
 *     was chosen; {@code auto} (also a list naming no registered transport) - a non-native transport was chosen
 *     although a native provider is registered and unavailable for a reason other than {@code conduit.noNative}.
 *     Choosing {@code kqueue} over an unavailable {@code epoll} in {@code auto} is not a fallback (both are native;
 *     only one can work on a given OS).</li>
 * <li>A malformed property (any of {@link ConduitProperties#DEFAULTS}: the preference in use, the booleans,
 *     {@code conduit.leakDetection}, {@code conduit.maxDirectMemory}, {@code conduit.recycler.maxCapacityPerThread},
 *     an empty path) or override fails the selection with an {@link IllegalArgumentException} cause naming the
 *     property, the value and the allowed values (further ones are suppressed on it and appended to the reason).</li>
 * </ol>
 */
public final class SelectionRules {

    /** How an unknown-name warning starts (the registry defers and deduplicates these). */
    static final String UNKNOWN_PREFIX = "unknown transport";
    /**
     * How a warning about a listed transport that was registered before and is not now starts:
     * {@code "transport 'epoll' in "} (see {@link #notRegisteredNowPrefix}).
     */
    static final String NOT_REGISTERED_NOW_PREFIX = "transport '";
    /**
     * What an available candidate says when a malformed property failed the selection: the problem itself is
     * stated once, in the selection's reason.
     */
    static final String INVALID_CONFIGURATION_CANDIDATE =
            "available, not chosen: no transport is chosen while the configuration is invalid";
    /** Where an unknown-name warning's list of the registered transports starts. */
    static final String REGISTERED_MARK = "; registered transports: ";

    private SelectionRules() {
    }

    /**
     * @return how the warning about {@code name} not being registered now starts; the registry forgets such a
     *         warning when {@code name} is registered again, so the next departure is reported too
     */
    static String notRegisteredNowPrefix(String name) {
        return NOT_REGISTERED_NOW_PREFIX + name + "' in ";
    }

    /** @return whether {@code warning} is about listed names that are not registered (unknown or gone) */
    static boolean isNameWarning(String warning) {
        return warning.startsWith(UNKNOWN_PREFIX) || warning.startsWith(NOT_REGISTERED_NOW_PREFIX);
    }

    /**
     * @return after the registered list of an unknown-name warning, the registered name each unknown one is a
     *         plausible typo of ({@link Suggestions}): {@code " (did you mean 'io_uring'?)"} for {@code iouring}, or
     *         {@code " (did you mean 'io_uring' for iouring, 'epoll' for epol?)"}; empty when none is close. After the
     *         list, so the part a warning is deduplicated by does not change as providers come and go.
     */
    static String didYouMean(List<String> unknown, List<String> registered) {
        List<String> guesses = new ArrayList<>();
        for (String name : unknown) {
            String like = Suggestions.closest(name, registered);
            if (like != null) {
                guesses.add("'" + like + "'" + (unknown.size() > 1 ? " for " + name : ""));
            }
        }
        return guesses.isEmpty() ? "" : " (did you mean " + String.join(", ", guesses) + "?)";
    }

    /** The sentence used whenever no provider is registered at all. */
    public static String noProviderMessage() {
        return "no transport is registered: add the conduit-nio jar or bundle (io.conduit.nio, pure Java, works"
                + " everywhere) and, for native I/O, conduit-epoll (io.conduit.epoll) with its fragment"
                + " io.conduit.epoll.linux." + PlatformInfo.libraryArch()
                + " on Linux, or conduit-kqueue (io.conduit.kqueue) with its fragment on macOS/FreeBSD";
    }

    /** Orders providers for {@code auto}: native first, then by descending ranking, then by name. */
    public static final Comparator<TransportProvider> AUTO_ORDER = Comparator
            .comparing((TransportProvider p) -> !p.isNative())
            .thenComparing(Comparator.comparingInt(TransportProvider::ranking).reversed())
            .thenComparing(TransportProvider::name);

    /**
     * Like {@link #select(List, ConduitProperties, String, Set)} with no provider registered before: every listed
     * name that is not registered is unknown.
     */
    public static TransportSelection select(List<? extends TransportProvider> providers, ConduitProperties props,
            String override) {
        return select(providers, props, override, Set.of());
    }

    /**
     * @param providers registered providers, unique by name
     * @param props the property snapshot
     * @param override the run-time preference ({@link io.conduit.transport.Transports#setPreference}), or
     *        {@code null} to use {@code conduit.transport}
     * @param formerlyRegistered names of providers that were registered at some time: a listed one that is not
     *        registered now is described as gone, not as unknown
     * @return the selection; never throws for configuration or availability problems (they are in
     *         {@link TransportSelection#failure()})
     */
    public static TransportSelection select(List<? extends TransportProvider> providers, ConduitProperties props,
            String override, Set<String> formerlyRegistered) {
        PreferenceSource source;
        String preferenceText;
        String origin;
        if (override != null) {
            source = PreferenceSource.OVERRIDE;
            preferenceText = override;
            origin = "the transport preference override";
        } else if (props.raw(ConduitProperties.TRANSPORT) != null) {
            source = PreferenceSource.SYSTEM_PROPERTY;
            preferenceText = props.raw(ConduitProperties.TRANSPORT);
            origin = ConduitProperties.TRANSPORT;
        } else {
            source = PreferenceSource.DEFAULT;
            preferenceText = ConduitProperties.AUTO;
            origin = ConduitProperties.TRANSPORT;
        }

        // Every malformed property fails the selection, in documentation order (the preference is parsed below).
        IllegalArgumentException configError = null;
        for (IllegalArgumentException e : props.problems()) {
            configError = chain(configError, e);
        }
        boolean strict = props.isValid(ConduitProperties.STRICT) && props.bool(ConduitProperties.STRICT);
        boolean noNative;
        String noNativeCause = null;
        if (!props.isValid(ConduitProperties.NO_NATIVE)) {
            noNative = true; // the value itself is quoted once, in the selection's reason
            noNativeCause = "not probed because system property " + ConduitProperties.NO_NATIVE
                    + " is not a boolean (true or false)";
        } else {
            noNative = props.bool(ConduitProperties.NO_NATIVE);
            if (noNative) {
                noNativeCause = "native transports are disabled by -D" + ConduitProperties.NO_NATIVE + "="
                        + props.raw(ConduitProperties.NO_NATIVE) + " (not probed); remove the property to use it";
            }
        }
        List<String> listed = List.of();
        try {
            listed = ConduitProperties.parsePreference(origin, preferenceText);
        } catch (IllegalArgumentException e) {
            configError = chain(configError, e);
        }

        List<TransportProvider> autoOrder = new ArrayList<>(providers);
        autoOrder.sort(AUTO_ORDER);
        List<String> known = new ArrayList<>();
        autoOrder.forEach(p -> known.add(p.name()));

        // Availability of every provider (natives are not probed under conduit.noNative).
        Map<TransportProvider, Availability> availability = new LinkedHashMap<>();
        for (TransportProvider p : autoOrder) {
            availability.put(p, noNative && p.isNative()
                    ? Availability.unavailable(new IllegalStateException(noNativeCause))
                    : probe(p));
        }

        List<String> warnings = new ArrayList<>();
        List<String> unknown = new ArrayList<>();
        List<String> gone = new ArrayList<>();
        // The listed names skipped before the first registered one, for the reason ("bogus: unknown").
        List<String> skippedFirst = new ArrayList<>();
        List<TransportProvider> order = new ArrayList<>();
        for (String name : listed) {
            TransportProvider p = byName(autoOrder, name);
            if (p == null) {
                boolean wasRegistered = formerlyRegistered.contains(name);
                (wasRegistered ? gone : unknown).add(name);
                if (order.isEmpty()) {
                    skippedFirst.add(name + (wasRegistered ? ": not registered now" : ": unknown"));
                }
            } else {
                order.add(p);
            }
        }
        boolean explicit = !order.isEmpty();
        List<TransportProvider> named = List.copyOf(order);
        for (TransportProvider p : autoOrder) {
            if (!order.contains(p)) {
                order.add(p);
            }
        }
        if (configError == null && (!unknown.isEmpty() || !gone.isEmpty())) {
            String where = " in " + origin + "='" + preferenceText + "'";
            String registered = REGISTERED_MARK + (known.isEmpty() ? "none" : String.join(", ", known));
            List<String> problems = new ArrayList<>();
            if (!unknown.isEmpty()) {
                problems.add(UNKNOWN_PREFIX + (unknown.size() > 1 ? "s " : " ") + String.join(", ", unknown) + where
                        + registered + didYouMean(unknown, known));
            }
            for (String name : gone) {
                problems.add(notRegisteredNowPrefix(name) + where.substring(" in ".length())
                        + " is not registered now (its bundle stopped?)" + registered);
            }
            if (strict) {
                configError = new IllegalArgumentException(String.join("; ", problems) + " ("
                        + ConduitProperties.STRICT + "=true)");
            } else {
                for (int i = 0; i < problems.size(); i++) {
                    boolean unknownOne = i == 0 && !unknown.isEmpty();
                    warnings.add(problems.get(i)
                            + (unknownOne ? "; skipped" : "; skipped until it is registered again"));
                }
            }
        }

        String preferenceShown = source == PreferenceSource.DEFAULT ? ConduitProperties.AUTO : preferenceText.trim();
        if (configError != null) {
            StringBuilder why = new StringBuilder("invalid configuration: ").append(configError.getMessage());
            for (Throwable more : configError.getSuppressed()) {
                why.append("; ").append(more.getMessage());
            }
            String reason = why.toString();
            return new TransportSelection(null, preferenceShown, source, strict, noNative,
                    candidates(order, availability, null, INVALID_CONFIGURATION_CANDIDATE, null), reason,
                    warnings, new UnavailableTransportException("no transport selected: " + reason, configError));
        }
        if (order.isEmpty()) {
            String reason = noProviderMessage();
            return new TransportSelection(null, preferenceShown, source, strict, noNative, List.of(), reason,
                    warnings, new UnavailableTransportException(reason, null));
        }

        TransportProvider preferred = order.get(0);
        TransportProvider chosen = null;
        for (TransportProvider p : order) {
            if (availability.get(p).isAvailable() && (p.autoSelectable() || named.contains(p))) {
                chosen = p;
                break;
            }
        }

        // The native provider whose unavailability matters in auto mode: the highest-ranked one that is not
        // disabled by conduit.noNative (null when none is registered or all are disabled by the property).
        TransportProvider missedNative = null;
        if (!explicit && (chosen == null || !chosen.isNative()) && !noNative) {
            for (TransportProvider p : autoOrder) {
                if (p.isNative() && p.autoSelectable()) {
                    missedNative = p;
                    break;
                }
            }
        }

        if (strict && explicit && chosen != preferred) {
            Throwable cause = availability.get(preferred).unavailabilityCause();
            String reason = "transport '" + preferred.name() + "' is first in " + origin + "='" + preferenceText
                    + "' and " + ConduitProperties.STRICT + "=true, but it is unavailable: " + cause.getMessage()
                    + ". Fix that cause, or set " + ConduitProperties.STRICT + "=false to fall back";
            return failed(order, availability, preferenceShown, source, strict, noNative, reason, warnings, cause,
                    preferred);
        }
        if (strict && missedNative != null) {
            Throwable cause = availability.get(missedNative).unavailabilityCause();
            String reason = "no native transport is available (" + ConduitProperties.STRICT + "=true with "
                    + ConduitProperties.TRANSPORT + "=auto requires one); '" + missedNative.name()
                    + "' is unavailable: " + cause.getMessage() + ". Fix that cause, set "
                    + ConduitProperties.NO_NATIVE + "=true, or set " + ConduitProperties.STRICT + "=false";
            return failed(order, availability, preferenceShown, source, strict, noNative, reason, warnings, cause,
                    missedNative);
        }
        if (chosen == null) {
            StringBuilder reason = new StringBuilder("no registered transport is available:");
            for (TransportProvider p : order) {
                Throwable cause = availability.get(p).unavailabilityCause();
                reason.append(" ").append(p.name()).append(": ").append(cause != null ? cause.getMessage()
                        : "available, but selected only when a preference names it (conduit:use " + p.name()
                                + ", or " + ConduitProperties.TRANSPORT + "=" + p.name() + ")").append(";");
            }
            reason.setLength(reason.length() - 1);
            return failed(order, availability, preferenceShown, source, strict, noNative, reason.toString(),
                    warnings, availability.get(preferred).unavailabilityCause(), preferred);
        }

        String reason;
        String skipped = String.join("; ", skippedFirst);
        String listText = origin + "='" + preferenceText.trim() + "'";
        if (explicit) {
            String first = skipped.isEmpty() ? "first in " + listText
                    : "first registered transport in " + listText + " (" + skipped + ")";
            if (chosen == preferred) {
                reason = first;
            } else {
                Throwable cause = availability.get(preferred).unavailabilityCause();
                reason = "preferred transport '" + preferred.name() + "' ("
                        + (skipped.isEmpty() ? "first in " + listText
                                : "first registered in " + listText + "; " + skipped)
                        + ") is unavailable, fell back to '" + chosen.name() + "': " + cause.getMessage();
                warnings.add(reason);
            }
        } else {
            // auto, or a list naming no registered transport, which leaves the auto order
            boolean auto = listed.isEmpty();
            String prefix = auto ? "" : "no transport listed in " + listText + " is registered (" + skipped
                    + "), so the auto order applies: ";
            String autoMark = auto ? " (auto)" : "";
            if (chosen.isNative()) {
                reason = prefix + "highest-ranked available native transport" + autoMark;
            } else if (missedNative != null) {
                Throwable cause = availability.get(missedNative).unavailabilityCause();
                reason = prefix + "native transport '" + missedNative.name() + "' is unavailable, fell back to '"
                        + chosen.name() + "': " + cause.getMessage();
                warnings.add(reason);
            } else if (noNative && providers.stream().anyMatch(TransportProvider::isNative)) {
                reason = prefix + "highest-ranked available transport" + autoMark
                        + "; native transports are disabled by " + ConduitProperties.NO_NATIVE;
            } else {
                reason = prefix + "highest-ranked available transport" + autoMark
                        + "; no native transport is registered";
            }
        }
        return new TransportSelection(chosen.name(), preferenceShown, source, strict, noNative,
                candidates(order, availability, chosen, "available, not chosen: '" + chosen.name()
                        + "' comes first", "selected: " + reason), reason, warnings, null);
    }

    private static TransportSelection failed(List<TransportProvider> order,
            Map<TransportProvider, Availability> availability, String preference, PreferenceSource source,
            boolean strict, boolean noNative, String reason, List<String> warnings, Throwable cause,
            TransportProvider causeOwner) {
        UnavailableTransportException failure = new UnavailableTransportException("no transport selected: "
                + reason, cause);
        for (TransportProvider p : order) {
            Throwable other = availability.get(p).unavailabilityCause();
            if (p != causeOwner && other != null) {
                failure.addSuppressed(other);
            }
        }
        return new TransportSelection(null, preference, source, strict, noNative,
                candidates(order, availability, null, INVALID_CONFIGURATION_CANDIDATE, null), reason, warnings,
                failure);
    }

    private static List<Candidate> candidates(List<TransportProvider> order,
            Map<TransportProvider, Availability> availability, TransportProvider chosen, String notChosenReason,
            String chosenReason) {
        List<Candidate> out = new ArrayList<>();
        for (TransportProvider p : order) {
            Availability a = availability.get(p);
            Outcome outcome;
            String reason;
            if (p == chosen) {
                outcome = Outcome.SELECTED;
                reason = chosenReason;
            } else if (a.isAvailable()) {
                outcome = Outcome.NOT_CHOSEN;
                reason = notChosenReason;
            } else {
                outcome = Outcome.UNAVAILABLE;
                reason = "unavailable: " + a.unavailabilityCause().getMessage();
            }
            out.add(new Candidate(p.name(), p.isNative(), p.ranking(), a, outcome, reason));
        }
        return out;
    }

    /** Calls {@link TransportProvider#availability()}, turning a probe that throws into an unavailability. */
    static Availability probe(TransportProvider p) {
        try {
            Availability a = p.availability();
            if (a == null) {
                return Availability.unavailable(new IllegalStateException("provider " + p.getClass().getName()
                        + " of transport '" + p.name() + "' returned no availability (null)"));
            }
            return a;
        } catch (RuntimeException | LinkageError e) {
            return Availability.unavailable(e);
        }
    }

    private static TransportProvider byName(List<TransportProvider> providers, String name) {
        for (TransportProvider p : providers) {
            if (p.name().equals(name)) {
                return p;
            }
        }
        return null;
    }

    private static IllegalArgumentException chain(IllegalArgumentException first, IllegalArgumentException next) {
        if (first == null) {
            return next;
        }
        first.addSuppressed(next);
        return first;
    }
}
