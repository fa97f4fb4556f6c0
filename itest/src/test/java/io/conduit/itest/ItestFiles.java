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
