package io.conduit.transport;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * An immutable account of one transport selection (docs/configuration.md): which transport was selected, or why none
 * was; the preference that was applied and where it came from; and, for every registered provider, its
 * availability and why it was or was not chosen. Obtained from {@link Transports#selection()}; the
 * {@link Diagnostics} report prints it.
 *
 * @param selectedName the selected transport's name, or {@code null} when none could be selected
 * @param preference the preference text that was applied, e.g. {@code "auto"} or {@code "epoll,nio"}
 * @param preferenceSource where {@code preference} came from
 * @param strict the value of {@code conduit.transport.strict} ({@code false} when it was malformed)
 * @param noNative the value of {@code conduit.noNative} ({@code true} when it was malformed: natives are not probed)
 * @param candidates every registered provider, in the order selection considered them (listed names first,
 *        then native transports by descending ranking, then the others by descending ranking)
 * @param reason one sentence: why {@code selectedName} was selected, or why nothing was
 * @param warnings fallbacks and skipped unknown names; the registry logs each distinct one once
 * @param failure {@code null} when a transport was selected; otherwise the exception
 *        {@link Transports#selected()} throws (its cause is the preferred transport's unavailability cause, or
 *        the configuration error)
 */
public record TransportSelection(String selectedName, String preference, PreferenceSource preferenceSource,
        boolean strict, boolean noNative, List<Candidate> candidates, String reason, List<String> warnings,
        UnavailableTransportException failure) {

    /** Where the applied transport preference came from. */
    public enum PreferenceSource {
        /** Nothing was set: {@code auto}. */
        DEFAULT,
        /** The {@code conduit.transport} system property. */
        SYSTEM_PROPERTY,
        /** {@link Transports#setPreference(String)} (Configuration Admin PID {@code io.conduit.transport}). */
        OVERRIDE
    }

    /** What happened to one provider in this selection. */
    public enum Outcome {
        /** Chosen. */
        SELECTED,
        /** Available, but another transport came first (or the selection failed before reaching it). */
        NOT_CHOSEN,
        /** Unavailable; {@link Candidate#availability()} holds the cause. */
        UNAVAILABLE
    }

    /**
     * One provider as selection saw it.
     *
     * @param name transport name
     * @param isNative whether it needs a native library
     * @param ranking its ranking
     * @param availability its availability as used here (for a native provider under {@code conduit.noNative},
     *        an unavailability whose cause names that property; such a provider is not probed)
     * @param outcome what happened to it
     * @param reason one sentence: why it was or was not chosen
     */
    public record Candidate(String name, boolean isNative, int ranking, Availability availability, Outcome outcome,
            String reason) {
        public Candidate {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(availability, "availability");
            Objects.requireNonNull(outcome, "outcome");
            Objects.requireNonNull(reason, "reason");
        }
    }

    public TransportSelection {
        Objects.requireNonNull(preference, "preference");
        Objects.requireNonNull(preferenceSource, "preferenceSource");
        Objects.requireNonNull(reason, "reason");
        candidates = List.copyOf(candidates);
        warnings = List.copyOf(warnings);
        if ((selectedName == null) == (failure == null)) {
            throw new IllegalArgumentException("exactly one of selectedName and failure must be set, got "
                    + selectedName + " and " + failure);
        }
    }

    /** @return the selected transport's name, empty when none could be selected */
    public Optional<String> selected() {
        return Optional.ofNullable(selectedName);
    }

    /** @return the candidate named {@code name}, if registered */
    public Optional<Candidate> candidate(String name) {
        return candidates.stream().filter(c -> c.name().equals(name)).findFirst();
    }

    /**
     * @return several lines: the preference and its source, each candidate with its outcome and reason, and the
     *         result; no stack traces (the {@link Diagnostics} report adds load attempts)
     */
    public String explain() {
        StringBuilder sb = new StringBuilder();
        sb.append("preference: ").append(preference).append(" (").append(describe(preferenceSource)).append(")")
                .append(strict ? ", strict" : "").append(noNative ? ", native transports disabled" : "")
                .append('\n');
        for (Candidate c : candidates) {
            sb.append("  ").append(c.name()).append(c.isNative() ? " [native" : " [java").append(", ranking ")
                    .append(c.ranking()).append("]: ").append(c.reason()).append('\n');
        }
        sb.append(selectedName != null ? "selected: " + selectedName + " - " + reason : "no transport selected: "
                + reason);
        return sb.toString();
    }

    static String describe(PreferenceSource source) {
        switch (source) {
            case SYSTEM_PROPERTY:
                return "from system property conduit.transport";
            case OVERRIDE:
                return "from the run-time override (Transports.setPreference / Configuration Admin)";
            default:
                return "default";
        }
    }

    @Override
    public String toString() {
        return explain();
    }
}
