package io.conduit.itest;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** File helpers of the JPMS and Karaf tests (plain JUnit 5, outside any framework). */
final class ItestFiles {

    private ItestFiles() {
    }

    /** @return the system property the pom sets; fails naming it when missing */
    static String required(String property) {
        String value = System.getProperty(property);
        if (value == null || value.isEmpty()) {
            throw new IllegalStateException("system property " + property + " is not set: run the test through"
                    + " Maven (itest/pom.xml sets it)");
        }
        return value;
    }

    /**
     * The symbolic names of the epoll fragments this build made: {@code io.conduit.epoll.linux.x86_64} always, and
     * {@code io.conduit.epoll.linux.aarch64} and {@code io.conduit.epoll.linux.armv7} only where their cross compiler
     * made the library (itest/pom.xml sets {@code conduit.itest.epollAarch64Built} and
     * {@code conduit.itest.epollArmv7Built}). The build prints one line when it skips a fragment, and fails there
     * instead under {@code CONDUIT_REQUIRE_TOOLS=true}, so the tests do not report it again.
     */
    static List<String> epollFragments() {
        List<String> fragments = new java.util.ArrayList<>(List.of("io.conduit.epoll.linux.x86_64"));
        if (Boolean.parseBoolean(required("conduit.itest.epollAarch64Built"))) {
            fragments.add("io.conduit.epoll.linux.aarch64");
        }
        if (Boolean.parseBoolean(required("conduit.itest.epollArmv7Built"))) {
            fragments.add("io.conduit.epoll.linux.armv7");
        }
        return List.copyOf(fragments);
    }

    /** Every epoll fragment a build can make, built here or not. */
    static final List<String> ALL_EPOLL_FRAGMENTS = List.of("io.conduit.epoll.linux.x86_64",
            "io.conduit.epoll.linux.aarch64", "io.conduit.epoll.linux.armv7");

    /**
     * @param fragment e.g. {@code io.conduit.epoll.linux.armv7}
     * @return the system property holding its jar's path, e.g. {@code conduit.itest.epollArmv7Jar}
     */
    static String epollFragmentJarProperty(String fragment) {
        switch (fragment) {
            case "io.conduit.epoll.linux.x86_64":
                return "conduit.itest.epollX86Jar";
            case "io.conduit.epoll.linux.aarch64":
                return "conduit.itest.epollAarch64Jar";
            case "io.conduit.epoll.linux.armv7":
                return "conduit.itest.epollArmv7Jar";
            default:
                throw new IllegalArgumentException("no epoll fragment " + fragment);
        }
    }

    /**
     * The symbolic names of the io_uring fragments this build made. The same cross compilers make them as make the
     * epoll ones ({@link #epollFragments()}): {@code io.conduit.iouring.linux.x86_64} always, aarch64 and armv7
     * where their compiler exists.
     */
    static List<String> iouringFragments() {
        return epollFragments().stream().map(f -> f.replace(".epoll.", ".iouring.")).toList();
    }

    /**
     * @param fragment e.g. {@code io.conduit.iouring.linux.x86_64}
     * @return the system property holding its jar's path, e.g. {@code conduit.itest.iouringX86Jar}
     */
    static String iouringFragmentJarProperty(String fragment) {
        return epollFragmentJarProperty(fragment.replace(".iouring.", ".epoll.")).replace(".epoll", ".iouring");
    }

    /**
     * @param program a program name without a directory
     * @return the first executable {@code program} in a {@code PATH} directory, or {@code null}
     */
    static Path onPath(String program) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            Path p = dir.isEmpty() ? null : Path.of(dir, program);
            if (p != null && Files.isRegularFile(p) && Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    /**
     * A missing prerequisite, reported as {@code io.conduit.testsuite.RequiredTools} does (that module is not on
     * the frameworks' class path here): one {@code [tools] SKIPPED} line, or a failure under
     * {@code CONDUIT_REQUIRE_TOOLS=true}.
     *
     * @return the reason, for the assumption that skips the test
     * @throws AssertionError under {@code CONDUIT_REQUIRE_TOOLS=true}
     */
    static String missing(String what, String remedy) {
        if ("true".equals(System.getenv("CONDUIT_REQUIRE_TOOLS"))) {
            throw new AssertionError("[tools] FAILED: " + what + ", and CONDUIT_REQUIRE_TOOLS=true forbids skipping; "
                    + remedy);
        }
        String reason = what + ": the tests that need it are skipped; " + remedy;
        System.out.println("[tools] SKIPPED: " + reason);
        return reason;
    }

    /** Deletes {@code dir} and everything below it; nothing happens when it does not exist. */
    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        }
    }
}
