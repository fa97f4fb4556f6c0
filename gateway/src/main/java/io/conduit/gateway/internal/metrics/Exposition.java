package io.conduit.gateway.internal.metrics;

import java.math.BigDecimal;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * One scrape in the Prometheus text exposition format, version 0.0.4 ({@value #CONTENT_TYPE}).
 *
 * <p>{@link MetricsCollector}s declare metric families ({@link #counter}, {@link #gauge}, {@link #histogram}) and add
 * samples to them. Several collectors may add samples to one family (every relay adds its own endpoints to
 * {@code conduit_gateway_client_received_bytes_total}): {@link #text()} writes each family once, in the order of its
 * first declaration, as its {@code # HELP} line, its {@code # TYPE} line and then all its samples, as the format
 * requires. A family without samples is left out.
 *
 * <p>Checked here, so a collector cannot produce a scrape Prometheus rejects: metric and label names; a counter's name
 * ends in {@code _total}; a family declared again has the same type, help and bucket bounds; a sample's label names
 * are distinct and not reserved ({@code le} belongs to histograms, names starting with {@code __} to Prometheus); no
 * two samples of a family have the same labels. Each violation is an {@link IllegalArgumentException}, thrown before
 * anything of that call is added. Label values and help texts are escaped.
 *
 * <p>Not thread-safe: one scrape is made by one thread.
 */
public final class Exposition {

    /** The {@code Content-Type} of the text format, version 0.0.4. */
    public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private static final Pattern METRIC_NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
    private static final Pattern LABEL_NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");

    /** Families by name, in the order of their first declaration. */
    private final Map<String, Family> families = new LinkedHashMap<>();

    /**
     * @param name a counter's name, ending in {@code _total}, e.g. {@code conduit_gateway_connections_total}
     * @param help what it counts, with its unit
     * @return the family, new or declared before with the same help
     * @throws IllegalArgumentException for a malformed name, or a name declared before as something else
     */
    public Family counter(String name, String help) {
        if (!name.endsWith("_total")) {
            throw new IllegalArgumentException("counter '" + name + "' does not end in _total");
        }
        return declare(name, "counter", help, null);
    }

    /**
     * @param name a gauge's name, e.g. {@code conduit_gateway_connections_open}
     * @param help what it measures, with its unit
     * @return the family, new or declared before with the same help
     * @throws IllegalArgumentException for a malformed name, or a name declared before as something else
     */
    public Family gauge(String name, String help) {
        return declare(name, "gauge", help, null);
    }

    /**
     * @param name        the histogram's base name, e.g. {@code conduit_gateway_upstream_connect_duration_seconds};
     *                    its samples are {@code <name>_bucket}, {@code <name>_sum} and {@code <name>_count}
     * @param help        what it observes, with its unit
     * @param upperBounds the buckets' upper bounds, finite and strictly increasing; {@code +Inf} is added
     * @return the family, new or declared before with the same help and bounds
     * @throws IllegalArgumentException for a malformed name or bounds, or a name declared before as something else
     */
    public Family histogram(String name, String help, double[] upperBounds) {
        for (int i = 0; i < upperBounds.length; i++) {
            if (!Double.isFinite(upperBounds[i]) || (i > 0 && upperBounds[i] <= upperBounds[i - 1])) {
                throw new IllegalArgumentException("histogram '" + name + "': bounds must be finite and increasing: "
                        + java.util.Arrays.toString(upperBounds));
            }
        }
        return declare(name, "histogram", help, upperBounds.clone());
    }

    private Family declare(String name, String type, String help, double[] bounds) {
        if (!METRIC_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("'" + name + "' is not a metric name ([a-zA-Z_:][a-zA-Z0-9_:]*)");
        }
        Family f = families.get(name);
        if (f == null) {
            f = new Family(name, type, help, bounds);
            families.put(name, f);
            return f;
        }
        if (!f.type.equals(type) || !f.help.equals(help) || !java.util.Arrays.equals(f.bounds, bounds)) {
            throw new IllegalArgumentException("metric family '" + name + "' is declared twice differently: "
                    + f.type + " and " + type);
        }
        return f;
    }

    /**
     * @return the scrape: for each family with samples its {@code # HELP} and {@code # TYPE} lines and its samples,
     *         each line ending in {@code \n}
     */
    public String text() {
        StringBuilder out = new StringBuilder(4096);
        for (Family f : families.values()) {
            if (f.samples.length() == 0) {
                continue;
            }
            out.append("# HELP ").append(f.name).append(' ');
            escapeHelp(f.help, out);
            out.append('\n').append("# TYPE ").append(f.name).append(' ').append(f.type).append('\n');
            out.append(f.samples);
        }
        return out.toString();
    }

    /** One metric family of a scrape: its samples, each with its own labels. */
    public final class Family {
        private final String name;
        private final String type;
        private final String help;
        /** Histogram bucket bounds; {@code null} for other types. */
        private final double[] bounds;
        /** The sample lines written so far. */
        private final StringBuilder samples = new StringBuilder();
        /** The label sets of the samples so far, rendered, to refuse a second sample with the same labels. */
        private final Set<String> series = new HashSet<>();

        private Family(String name, String type, String help, double[] bounds) {
            this.name = name;
            this.type = type;
            this.help = help;
            this.bounds = bounds;
        }

        /**
         * Adds a counter or gauge sample.
         *
         * @param value  the value; a counter's is never negative
         * @param labels label names and values alternating, e.g. {@code "kind", "echo", "listen", "tcp://..."}
         * @return this family
         * @throws IllegalArgumentException for a histogram, bad labels, labels used before, or a negative counter
         */
        public Family sample(double value, String... labels) {
            return add(value(value), !(value >= 0), labels);
        }

        /**
         * Adds a counter or gauge sample with a whole value, written exactly (also above 2<sup>53</sup>).
         *
         * @see #sample(double, String...)
         */
        public Family sample(long value, String... labels) {
            return add(Long.toString(value), value < 0, labels);
        }

        private Family add(String value, boolean negative, String... labels) {
            if (bounds != null) {
                throw new IllegalArgumentException("'" + name + "' is a histogram: add its samples with histogramSample");
            }
            if ("counter".equals(type) && negative) {
                throw new IllegalArgumentException("counter '" + name + "' = " + value + ": counters are not negative");
            }
            String rendered = labels(labels, null);
            if (!series.add(rendered)) {
                throw new IllegalArgumentException("'" + name + "' has a sample with labels " + rendered + " already");
            }
            line(name, rendered, value);
            return this;
        }

        /**
         * Adds one histogram: a cumulative {@code _bucket} sample per bound and {@code +Inf}, then {@code _sum} and
         * {@code _count}.
         *
         * @param bucketCounts the observations of each bucket alone (not cumulative): index {@code i} counts those
         *                     above bound {@code i - 1} and at most bound {@code i}; the last one counts those above
         *                     the largest bound; one more element than the bounds
         * @param sum          the sum of the observations
         * @param labels       as for {@link #sample}
         * @return this family
         * @throws IllegalArgumentException for another type, a wrong number of counts, a negative count, bad labels,
         *         or labels used before
         */
        public Family histogramSample(long[] bucketCounts, double sum, String... labels) {
            if (bounds == null) {
                throw new IllegalArgumentException("'" + name + "' is a " + type + ", not a histogram");
            }
            if (bucketCounts.length != bounds.length + 1) {
                throw new IllegalArgumentException("'" + name + "' has " + (bounds.length + 1) + " buckets, not "
                        + bucketCounts.length);
            }
            for (long c : bucketCounts) {
                if (c < 0) {
                    throw new IllegalArgumentException("'" + name + "': a bucket count is negative");
                }
            }
            String rendered = labels(labels, null);
            if (!series.add(rendered)) {
                throw new IllegalArgumentException("'" + name + "' has a sample with labels " + rendered + " already");
            }
            long cumulative = 0;
            for (int i = 0; i <= bounds.length; i++) {
                cumulative += bucketCounts[i];
                String le = i < bounds.length ? bound(bounds[i]) : "+Inf";
                line(name + "_bucket", labels(labels, le), Long.toString(cumulative));
            }
            line(name + "_sum", rendered, value(sum));
            line(name + "_count", rendered, Long.toString(cumulative));
            return this;
        }

        private void line(String sampleName, String renderedLabels, String value) {
            samples.append(sampleName).append(renderedLabels).append(' ').append(value).append('\n');
        }

        /** @return {@code {a="x",b="y"}}, with {@code le} last when given, or the empty string without labels */
        private String labels(String[] labels, String le) {
            if (labels.length % 2 != 0) {
                throw new IllegalArgumentException("'" + name + "': labels come in name, value pairs");
            }
            if (labels.length == 0 && le == null) {
                return "";
            }
            StringBuilder b = new StringBuilder("{");
            Set<String> names = new HashSet<>();
            for (int i = 0; i < labels.length; i += 2) {
                String label = labels[i];
                if (label == null || !LABEL_NAME.matcher(label).matches() || label.startsWith("__")
                        || (bounds != null && label.equals("le"))) {
                    throw new IllegalArgumentException("'" + name + "': '" + label + "' is not a label name to use");
                }
                if (!names.add(label)) {
                    throw new IllegalArgumentException("'" + name + "': label '" + label + "' given twice");
                }
                if (labels[i + 1] == null) {
                    throw new IllegalArgumentException("'" + name + "': label '" + label + "' has no value");
                }
                if (i > 0) {
                    b.append(',');
                }
                b.append(label).append("=\"");
                escapeLabelValue(labels[i + 1], b);
                b.append('"');
            }
            if (le != null) {
                b.append(labels.length > 0 ? "," : "").append("le=\"").append(le).append('"');
            }
            return b.append('}').toString();
        }
    }

    /**
     * @return {@code value} as the format writes it: a whole number without a fraction ({@code 42}), {@code NaN},
     *         {@code +Inf}, {@code -Inf}, else Java's shortest decimal form ({@code 0.25}, {@code 1.0E-4}), which
     *         Prometheus and its clients parse
     */
    static String value(double value) {
        if (Double.isNaN(value)) {
            return "NaN";
        }
        if (Double.isInfinite(value)) {
            return value > 0 ? "+Inf" : "-Inf";
        }
        if (value == Math.rint(value) && Math.abs(value) < 1e15) {
            return Long.toString((long) value);
        }
        return Double.toString(value);
    }

    /** @return a bucket bound as its plain decimal, e.g. {@code 0.0005}, {@code 1}, {@code 2.5} */
    static String bound(double bound) {
        return BigDecimal.valueOf(bound).stripTrailingZeros().toPlainString();
    }

    /** Escapes a help text: backslash and line feed. */
    private static void escapeHelp(String help, StringBuilder out) {
        escape(help, false, out);
    }

    /** Escapes a label value: backslash, line feed and double quote. */
    private static void escapeLabelValue(String v, StringBuilder out) {
        escape(v, true, out);
    }

    private static void escape(String text, boolean quote, StringBuilder out) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\\') {
                out.append("\\\\");
            } else if (c == '\n') {
                out.append("\\n");
            } else if (c == '"' && quote) {
                out.append("\\\"");
            } else {
                out.append(c);
            }
        }
    }
}
