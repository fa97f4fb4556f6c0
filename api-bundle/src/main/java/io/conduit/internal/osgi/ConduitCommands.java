package io.conduit.internal.osgi;

import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.conduit.channel.Channel;
import io.conduit.channel.ChannelPipeline;
import io.conduit.channel.ConnectionFacts;
import io.conduit.channel.DatagramChannel;
import io.conduit.channel.DomainDatagramChannel;
import io.conduit.channel.DomainSocketChannel;
import io.conduit.channel.ServerChannel;
import io.conduit.channel.SocketChannel;
import io.conduit.channel.TcpInfo;
import io.conduit.channel.UnixAbstractAddress;
import io.conduit.internal.channel.access.CoreChannel;
import io.conduit.internal.channel.core.ChannelStats;
import io.conduit.internal.channel.core.OpenChannels;
import io.conduit.internal.config.ConduitProperties;
import io.conduit.internal.config.Suggestions;
import io.conduit.internal.transport.TransportRegistry;
import io.conduit.transport.Availability;
import io.conduit.transport.Diagnostics;
import io.conduit.transport.TransportSelection;

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
     * the first line of the unavailability cause, and {@code *} before the selected one; then a rejected
     * configuration of PID {@code io.conduit.transport} (when the last one was rejected), the preference and the
     * selection result.
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
        String rejected = registry.rejectedConfiguration();
        if (rejected != null) {
            out.append(rejected).append('\n');
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
     * update or {@code conduit:use} without argument. A well-formed name that no registered transport has is kept,
     * as the configuration file keeps it (its bundle may register later), and the reply says so in one line that
     * names the registered transports (sorted) and the nearest one ({@link Suggestions}). The reply ends with one
     * line for the selection.
     *
     * @throws IllegalArgumentException when the preference is malformed (Gogo prints the message); the preference
     *                                  in effect stays
     */
    public String use(String preference) {
        registry.setPreference(preference);
        TransportSelection s = registry.selection();
        List<String> registered = new ArrayList<>();
        s.candidates().forEach(c -> registered.add(c.name()));
        registered.sort(null);
        List<String> unknown = new ArrayList<>();
        for (String name : ConduitProperties.parsePreference("transport preference", preference)) {
            if (!registered.contains(name)) {
                unknown.add(name);
            }
        }
        StringBuilder out = new StringBuilder("preference set to '").append(preference.trim()).append("'\n");
        if (!unknown.isEmpty()) {
            out.append(unknownNames(unknown, registered)).append('\n');
        }
        return out.append(selectedLine(s)).toString();
    }

    /**
     * @return the line of {@link #use(String)} for listed names no registered transport has, e.g.
     *         {@code warning: no registered transport is named 'iouring' (did you mean 'io_uring'?); registered
     *         transports: epoll, io_uring, nio; the name is kept and applies once a bundle registers it}
     */
    static String unknownNames(List<String> unknown, List<String> registered) {
        StringBuilder w = new StringBuilder("warning: no registered transport is named ");
        for (int i = 0; i < unknown.size(); i++) {
            String name = unknown.get(i);
            w.append(i == 0 ? "" : ", ").append('\'').append(name).append('\'')
                    .append(Suggestions.didYouMean(name, registered));
        }
        return w.append("; registered transports: ")
                .append(registered.isEmpty() ? "none" : String.join(", ", registered))
                .append(unknown.size() == 1 ? "; the name is kept and applies once a bundle registers it"
                        : "; the names are kept and apply once a bundle registers them")
                .append(" ('conduit:use' alone drops the preference)").toString();
    }

    /** {@code conduit:use} without argument - drops the run-time preference; the system property applies again. */
    public String use() {
        registry.setPreference(null);
        return "run-time preference cleared; conduit.transport applies\n" + selectedLine(registry.selection());
    }

    /** {@code conduit:diag} - the diagnostics report of {@link Diagnostics#report()}. */
    public String diag() {
        return Diagnostics.report();
    }

    /**
     * {@code conduit:channels} - one line per open channel reported to {@link OpenChannels}: id, transport, type
     * ({@link #type(Channel)}), local and remote address, bytes in and out, age, and, when any channel has them, a
     * {@code PEER} column with the {@link ConnectionFacts} of its handlers. Each column is as wide as its
     * longest cell (a long Unix socket path widens its column instead of pushing the row out of line); numbers are
     * right-aligned.
     */
    public String channels() {
        return channels(false);
    }

    /**
     * {@code conduit:channels -v} - {@link #channels()} with one more line under each TCP connection: the kernel's
     * {@code TCP_INFO} ({@link TcpInfo}: state, round-trip time and its variation, retransmission timeout, congestion
     * window, unacknowledged, lost and retransmitted segments), on transports that can read it.
     *
     * @param option {@code -v}
     * @throws IllegalArgumentException for any other option
     */
    public String channels(String option) {
        if (!"-v".equals(option)) {
            throw new IllegalArgumentException("unknown option '" + option + "'; usage: conduit:channels [-v]");
        }
        return channels(true);
    }

    private String channels(boolean verbose) {
        List<ChannelStats> open = OpenChannels.snapshot();
        List<String[]> rows = new ArrayList<>();
        List<String> facts = new ArrayList<>();
        List<String> details = new ArrayList<>();
        long now = System.nanoTime();
        for (ChannelStats s : open) {
            Channel c = s.channel();
            rows.add(new String[] {c.id(), c.transportName(), type(c), address(c.localAddress()),
                address(c.remoteAddress()), Long.toString(s.bytesRead()), Long.toString(s.bytesWritten()),
                age(now - s.openedAtNanos())});
            facts.add(facts(c));
            details.add(verbose ? tcpInfo(c) : null);
        }
        boolean peer = facts.stream().anyMatch(f -> !f.isEmpty());
        String[] header = peer ? new String[] {"ID", "TRANSPORT", "TYPE", "LOCAL", "REMOTE", "BYTES IN", "BYTES OUT",
            "AGE", "PEER"} : new String[] {"ID", "TRANSPORT", "TYPE", "LOCAL", "REMOTE", "BYTES IN", "BYTES OUT", "AGE"};
        boolean[] right = {false, false, false, false, false, true, true, true, false};
        if (peer) {
            for (int i = 0; i < rows.size(); i++) {
                String[] row = java.util.Arrays.copyOf(rows.get(i), header.length);
                row[header.length - 1] = facts.get(i);
                rows.set(i, row);
            }
        }
        rows.add(0, header);
        int[] width = new int[header.length];
        for (String[] row : rows) {
            for (int i = 0; i < row.length; i++) {
                width[i] = Math.max(width[i], row[i].length());
            }
        }
        StringBuilder out = new StringBuilder();
        for (int r = 0; r < rows.size(); r++) {
            String[] row = rows.get(r);
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < row.length; i++) {
                if (i > 0) {
                    line.append("  ");
                }
                String pad = " ".repeat(width[i] - row[i].length());
                line.append(right[i] ? pad + row[i] : row[i] + pad);
            }
            out.append(line.toString().stripTrailing()).append('\n');
            String detail = r > 0 ? details.get(r - 1) : null;
            if (detail != null) {
                out.append("    ").append(detail).append('\n');
            }
        }
        out.append(open.size()).append(open.size() == 1 ? " open channel" : " open channels").append('\n');
        return out.toString();
    }

    /**
     * @return {@code "tcp_info: ..."} for an open TCP connection on a transport that reads it, the reason it cannot
     *         for one on another transport, or {@code null} for other channels
     */
    static String tcpInfo(Channel c) {
        if (!(c instanceof SocketChannel tcp) || c instanceof ServerChannel) {
            return null;
        }
        try {
            return "tcp_info: " + tcp.tcpInfo();
        } catch (UnsupportedOperationException | IllegalStateException e) {
            return "tcp_info: " + e.getMessage();
        }
    }

    /** @return the {@link ConnectionFacts} of {@code c}'s handlers joined by {@code "; "}, or {@code ""} */
    static String facts(Channel c) {
        ChannelPipeline pipeline = c.pipeline();
        if (pipeline == null) {
            return "";
        }
        StringBuilder out = new StringBuilder();
        for (String name : pipeline.names()) {
            if (pipeline.get(name) instanceof ConnectionFacts f) {
                String line;
                try {
                    line = f.connectionFacts();
                } catch (RuntimeException e) {
                    line = f.getClass().getSimpleName() + ": " + e;
                }
                if (line != null && !line.isEmpty()) {
                    out.append(out.length() > 0 ? "; " : "").append(line);
                }
            }
        }
        return out.toString();
    }

    /**
     * @return the kind of {@code c} for {@code conduit:channels}: {@code tcp}, {@code tcp-server}, {@code udp},
     *         {@code unix}, {@code unix-server}, {@code unix-dgram}, or {@code other} for a channel of none of these
     *         types (e.g. an embedded channel)
     */
    static String type(Channel c) {
        if (c instanceof DomainDatagramChannel) {
            return "unix-dgram";
        }
        if (c instanceof DatagramChannel) {
            return "udp";
        }
        boolean unix = c instanceof CoreChannel core ? core.unixDomain()
                : c instanceof DomainSocketChannel || isUnixAddress(c.localAddress());
        if (c instanceof ServerChannel) {
            return unix ? "unix-server" : "tcp-server";
        }
        if (unix) {
            return "unix";
        }
        return c instanceof SocketChannel ? "tcp" : "other";
    }

    private static boolean isUnixAddress(SocketAddress a) {
        return a instanceof UnixDomainSocketAddress || a instanceof UnixAbstractAddress;
    }

    /** @return the one line of {@code conduit:use} for the selection {@code s} */
    private static String selectedLine(TransportSelection s) {
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

    /** @return {@code a} as shown in a table: {@code -} for none, {@code (unnamed)} for an unbound Unix socket */
    static String address(SocketAddress a) {
        if (a == null) {
            return "-";
        }
        if (a instanceof UnixDomainSocketAddress unix && unix.getPath().toString().isEmpty()) {
            return "(unnamed)"; // a connecting Unix client that never bound a name (unix(7): unnamed)
        }
        return a.toString();
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
