package io.conduit.benchmarks;

import java.util.Locale;

/** How the benchmark tables write a number. */
final class Figures {

    private Figures() {
    }

    /** @return three significant digits below 1,000, a whole number with thousands separators above */
    static String format(double v) {
        double a = Math.abs(v);
        if (a >= 1000) {
            return String.format(Locale.ROOT, "%,.0f", v);
        }
        if (a >= 100) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        if (a >= 10) {
            return String.format(Locale.ROOT, "%.1f", v);
        }
        return String.format(Locale.ROOT, "%.2f", v);
    }
}
