package io.conduit.transport;

import java.util.ArrayList;
import java.util.List;

/**
 * The transports one swap skipped because they went away while it bound on them, for the swap's single log line.
 * Swap thread only.
 */
final class SkippedTransports {

    /** E.g. {@code "'epoll' (NoClassDefFoundError: io/conduit/epoll/EpollEventArray)"}. */
    private final List<String> skipped = new ArrayList<>();

    /** Records {@code t}, skipped after {@code failure} (may be {@code null}), named with its root cause. */
    void add(Transport t, Throwable failure) {
        Throwable root = failure;
        while (root != null && root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        skipped.add("'" + t.name() + "'" + (root == null ? "" : " (" + root.getClass().getSimpleName()
                + (root.getMessage() == null ? "" : ": " + root.getMessage()) + ")"));
    }

    boolean isEmpty() {
        return skipped.isEmpty();
    }

    /** @return {@code ""}, or e.g. {@code "; skipped 'epoll' (...), which went away while the swap bound on it"} */
    String text() {
        if (skipped.isEmpty()) {
            return "";
        }
        return "; skipped " + String.join(", ", skipped) + (skipped.size() == 1 ? ", which" : ", which each")
                + " went away while the swap bound on it";
    }
}
