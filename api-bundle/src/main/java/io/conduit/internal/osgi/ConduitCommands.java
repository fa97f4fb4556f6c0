package io.conduit.internal.osgi;

import java.net.SocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.conduit.channel.Channel;
import io.conduit.internal.transport.TransportRegistry;
import io.conduit.transport.Availability;
import io.conduit.transport.Diagnostics;
import io.conduit.transport.TransportSelection;
import io.conduit.transport.spi.ChannelStats;
import io.conduit.transport.spi.OpenChannels;

/**
 * The Gogo shell commands of scope {@code conduit}: {@code transports}, {@code use}, {@code diag}, {@code channels}.
 * Registered by {@link ConduitActivator} as a plain service with the properties {@code osgi.command.scope} and
 * {@code osgi.command.function}, so the API bundle has no compile or import dependency on Gogo; Gogo finds the
 * public methods by reflection and prints the returned text. Uses no OSGi type, so it can be called (and tested)
 * without a framework. Thread-safe (stateless).
 */
public final class ConduitCommands {

    /** The Gogo scope. */
    public static final String SCOPE = "conduit";
    /** The Gogo functions: the public command methods of this class. */
    public static final String[] FUNCTIONS = {"transports", "use", "diag", "channels"};

    private final TransportRegistry registry;

    public ConduitCommands(TransportRegistry registry) {
        this.registry = registry;
    }

    /**
     * {@code conduit:transports} - one line per registered transport: name, native or java, ranking, available or
     * the first line of the unavailability cause, and {@code *} before the selected one; then the preference and
     * the selection result.
     */
    public String transports() {
        TransportSelection s = registry.selection();
        StringBuilder out = new StringBuilder();
        out.append(String.format("  %-12s %-6s %7s  %-9s %s%n", "NAME", "KIND", "RANKING", "AVAILABLE", "CAUSE"));
        if (s.candidates().isEmpty()) {
            out.append("  (no transport registered: install conduit-nio, conduit-epoll or conduit-kqueue)\n");
        }
        for (TransportSelection.Candidate c : s.candidates()) {
            Availability a = c.availability();
            String cause = a.isAvailable() ? "" : firstLine(a.unavailabilityCause());
            out.append(String.format("%s %-12s %-6s %7d  %-9s %s%n",
                    c.name().equals(s.selectedName()) ? "*" : " ", c.name(), c.isNative() ? "native" : "java",
                    c.ranking(), a.isAvailable() ? "yes" : "no", cause));
        }
        out.append("preference: ").append(s.preference()).append(" (").append(source(s)).append(')')
                .append(s.strict() ? ", strict" : "").append('\n');
        out.append(s.selectedName() != null ? "selected: " + s.selectedName() + " - " + s.reason()
                : "no transport selected: " + s.reason()).append('\n');
        return out.toString();
    }

    /**
     * {@code conduit:use <preference>} - sets the run-time preference ({@code auto} or an ordered list such as
     * {@code epoll,nio}) in place of {@code conduit.transport} / the configuration, until the next configuration
     * update or {@code conduit:use} without argument.
     *
     * @throws IllegalArgumentException when the preference is malformed (Gogo prints the message)
     */
    public String use(String preference) {
        registry.setPreference(preference);
        return "preference set to '" + preference.trim() + "'\n" + selectedLine();
    }

    /** {@code conduit:use} without argument - drops the run-time preference; the system property applies again. */
    public String use() {
        registry.setPreference(null);
        return "run-time preference cleared; conduit.transport applies\n" + selectedLine();
    }

    /** {@code conduit:diag} - the diagnostics report of {@link Diagnostics#report()}. */
    public String diag() {
        return Diagnostics.report();
    }

    /**
     * {@code conduit:channels} - one line per open channel reported to {@link OpenChannels}: id, transport, local
     * and remote address, bytes in and out, age.
     */
    public String channels() {
        List<ChannelStats> open = OpenChannels.snapshot();
        StringBuilder out = new StringBuilder();
        out.append(String.format("%-12s %-12s %-24s %-24s %12s %12s %10s%n", "ID", "TRANSPORT", "LOCAL", "REMOTE",
                "BYTES IN", "BYTES OUT", "AGE"));
        long now = System.nanoTime();
        for (ChannelStats s : open) {
            Channel c = s.channel();
            out.append(String.format("%-12s %-12s %-24s %-24s %12d %12d %10s%n", c.id(), c.transportName(),
                    address(c.localAddress()), address(c.remoteAddress()), s.bytesRead(), s.bytesWritten(),
                    age(now - s.openedAtNanos())));
        }
        out.append(open.size()).append(open.size() == 1 ? " open channel" : " open channels").append('\n');
        return out.toString();
    }

    private String selectedLine() {
        TransportSelection s = registry.selection();
        return s.selectedName() != null ? "selected: " + s.selectedName() + "\n"
                : "no transport selected: " + s.reason() + "\n";
    }

    private static String source(TransportSelection s) {
        switch (s.preferenceSource()) {
            case OVERRIDE:
                return "run-time override: configuration io.conduit.transport or conduit:use";
            case SYSTEM_PROPERTY:
                return "system property conduit.transport";
            default:
                return "default";
        }
    }

    private static String firstLine(Throwable t) {
        String m = String.valueOf(t.getMessage());
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }

    private static String address(SocketAddress a) {
        return a == null ? "-" : a.toString();
    }

    /** @return a duration as {@code 950ms}, {@code 12s}, {@code 3m05s} or {@code 2h07m} */
    static String age(long nanos) {
        long ms = TimeUnit.NANOSECONDS.toMillis(Math.max(0, nanos));
        if (ms < 1000) {
            return ms + "ms";
        }
        long s = ms / 1000;
        if (s < 60) {
            return s + "s";
        }
        if (s < 3600) {
            return String.format("%dm%02ds", s / 60, s % 60);
        }
        return String.format("%dh%02dm", s / 3600, (s % 3600) / 60);
    }
}
