package io.conduit.internal.config;

import java.util.Collection;
import java.util.Locale;

/**
 * The "did you mean" of a configuration value or key that is not one of the allowed ones: the allowed one it is a
 * plausible typo of. One rule for every such message of this bundle (keys of {@code io.conduit.transport}, transport
 * names in a preference): the same letters in another case, or at most one edit (insertion, deletion, substitution)
 * per four characters of the value, at least 1 and at most 3. Stateless.
 */
public final class Suggestions {

    private Suggestions() {
    }

    /**
     * @param value   what was given, e.g. {@code iouring}
     * @param allowed the allowed values, in the order to prefer on a tie
     * @return the allowed value closest to {@code value} within the rule above, e.g. {@code io_uring}; {@code null}
     *         when none is close enough or {@code value} is itself allowed
     */
    public static String closest(String value, Collection<String> allowed) {
        if (allowed.contains(value)) {
            return null;
        }
        String v = value.toLowerCase(Locale.ROOT);
        int limit = Math.max(1, Math.min(3, value.length() / 4));
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String a : allowed) {
            int d = editDistance(v, a.toLowerCase(Locale.ROOT));
            if (d <= limit && d < bestDistance) {
                best = a;
                bestDistance = d;
            }
        }
        return best;
    }

    /**
     * @return {@code " (did you mean 'x'?)"} for the {@linkplain #closest closest} allowed value {@code x}, or an
     *         empty string when there is none
     */
    public static String didYouMean(String value, Collection<String> allowed) {
        String like = closest(value, allowed);
        return like == null ? "" : " (did you mean '" + like + "'?)";
    }

    /** @return the Levenshtein distance of {@code a} and {@code b} (insertions, deletions, substitutions) */
    static int editDistance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int subst = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                cur[j] = Math.min(subst, Math.min(prev[j], cur[j - 1]) + 1);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
