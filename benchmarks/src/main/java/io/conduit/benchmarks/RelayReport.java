package io.conduit.benchmarks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The Markdown table of {@code benchmarks/relay.sh}: reads its raw values and prints, for every row and contender,
 * the median over the rounds and, for a relay, the median and range of its same-round ratios against the HAProxy of
 * the same thread count.
 *
 * <pre>
 * java -cp benchmarks/target/classes io.conduit.benchmarks.RelayReport RAW.tsv CONTENDER...
 * </pre>
 *
 * <p>{@code RAW.tsv} has one value per line: {@code round<TAB>contender<TAB>row<TAB>value}. Rows keep the order in
 * which the contender with the most rows has them. Contenders are the columns, in the order given; a contender named
 * {@code <kind>-<n>t} is compared with {@code haproxy-<n>t} when that is a column too. A missing value is
 * {@code n/a}.
 */
public final class RelayReport {

    private RelayReport() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 2) {
            System.err.println("usage: RelayReport RAW.tsv CONTENDER...");
            System.exit(1);
        }
        List<String> contenders = List.of(Arrays.copyOfRange(args, 1, args.length));
        System.out.print(table(Files.readAllLines(Path.of(args[0]), StandardCharsets.UTF_8), contenders));
    }

    /** @return the Markdown table of {@code lines} (the raw file's lines) with one column per contender */
    static String table(List<String> lines, List<String> contenders) {
        // row -> contender -> round -> value
        Map<String, Map<String, Map<String, Double>>> values = new LinkedHashMap<>();
        Set<String> rounds = new LinkedHashSet<>();
        for (String line : lines) {
            String[] f = line.split("\t");
            if (f.length != 4 || line.isBlank()) {
                continue;
            }
            double v;
            try {
                v = Double.parseDouble(f[3]);
            } catch (NumberFormatException notANumber) {
                continue;
            }
            rounds.add(f[0]);
            values.computeIfAbsent(f[2], r -> new LinkedHashMap<>()).computeIfAbsent(f[1], c -> new LinkedHashMap<>())
                    .put(f[0], v);
        }
        StringBuilder out = new StringBuilder("| row |");
        StringBuilder rule = new StringBuilder("|---|");
        for (String c : contenders) {
            String baseline = baselineOf(c, contenders);
            out.append(' ').append(c).append(baseline != null ? " (÷ " + baseline + ")" : "").append(" |");
            rule.append("---:|");
        }
        out.append('\n').append(rule).append('\n');
        for (String row : rowOrder(lines, values.keySet())) {
            out.append("| ").append(row).append(" |");
            for (String c : contenders) {
                out.append(' ').append(cell(values.get(row), c, baselineOf(c, contenders), rounds)).append(" |");
            }
            out.append('\n');
        }
        return out.toString();
    }

    /**
     * @return {@code rows} in the order of the contender that has the most of them (a proxy has CPU rows that the
     *         direct contender lacks), then the others in the order they first appear
     */
    private static Set<String> rowOrder(List<String> lines, Set<String> rows) {
        Map<String, Set<String>> byContender = new LinkedHashMap<>();
        for (String line : lines) {
            String[] f = line.split("\t");
            if (f.length == 4 && rows.contains(f[2])) {
                byContender.computeIfAbsent(f[1], c -> new LinkedHashSet<>()).add(f[2]);
            }
        }
        Set<String> order = new LinkedHashSet<>();
        byContender.values().stream().max((a, b) -> Integer.compare(a.size(), b.size())).ifPresent(order::addAll);
        order.addAll(rows);
        return order;
    }

    /** @return {@code haproxy-<n>t} for a contender {@code <kind>-<n>t} other than that one, when it is a column */
    static String baselineOf(String contender, List<String> contenders) {
        int dash = contender.lastIndexOf('-');
        if (dash < 0 || contender.startsWith("haproxy-")) {
            return null;
        }
        String baseline = "haproxy-" + contender.substring(dash + 1);
        return contenders.contains(baseline) ? baseline : null;
    }

    private static String cell(Map<String, Map<String, Double>> row, String contender, String baseline,
            Set<String> rounds) {
        Map<String, Double> mine = row.get(contender);
        if (mine == null || mine.isEmpty()) {
            return "n/a";
        }
        String text = Figures.format(median(new ArrayList<>(mine.values())));
        Map<String, Double> theirs = baseline == null ? null : row.get(baseline);
        if (theirs == null) {
            return text;
        }
        List<Double> ratios = new ArrayList<>();
        for (String round : rounds) {
            Double a = mine.get(round);
            Double b = theirs.get(round);
            if (a != null && b != null && b != 0) {
                ratios.add(a / b);
            }
        }
        if (ratios.isEmpty()) {
            return text;
        }
        double low = ratios.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
        double high = ratios.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
        String ratio = String.format(Locale.ROOT, "%.2f×", median(ratios));
        if (ratios.size() > 1) {
            ratio += String.format(Locale.ROOT, ", %.2f–%.2f", low, high);
        }
        return text + " (" + ratio + ")";
    }

    static double median(List<Double> values) {
        double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        int n = v.length;
        return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }

}
