package io.conduit.itest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The {@code conduit} Karaf feature in a real Apache Karaf 4.4.10 (the distribution the build fetched from Maven
 * Central to {@code target/karaf-dist}), run on a JDK 17 (Karaf 4.4's shell fails on JDK 25), first test pass only.
 *
 * <p>Steps: a fresh Karaf in {@code target/karaf-test} prepared by {@link KarafHost} (Central is its only remote
 * repository, none under {@code mvn -o}); {@code bin/karaf server}; {@code feature:repo-add mvn:io.conduit/conduit-itest/<version>/xml/features},
 * {@code feature:install conduit} and {@code conduit:transports} through {@code bin/client -b}; then
 * {@code bin/stop}. The Karaf process tree is killed in any case.
 *
 * <p>The test is skipped, with one line printed, only when no JDK 17 exists (neither this JVM nor under
 * {@code /usr/lib/jvm}); with {@code CONDUIT_REQUIRE_TOOLS=true} in the environment (CI) it fails instead. The
 * feature lists the aarch64 fragment only when the build made its library (itest/pom.xml), and the test checks that.
 * The io_uring bundle's fragments attach and its library loads too; {@code conduit:use io_uring} selects it and
 * {@code conduit:use} gives epoll back.
 */
class KarafFeatureTest {

    private static final Pattern NIO_AVAILABLE = Pattern.compile("(?m)^[* ] nio\\s+java\\s+\\d+\\s+yes");
    private static final Pattern IOURING_AVAILABLE = Pattern.compile("(?m)^  io_uring\\s+native\\s+50\\s+yes");
    private static final Pattern EPOLL_SELECTED = Pattern.compile("(?m)^\\* epoll\\s+native\\s+\\d+\\s+yes");

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void conduitFeatureInstallsAndItsCommandListsTheTransports() throws Exception {
        long startNanos = System.nanoTime();
        Path jdk17 = KarafHost.jdk17OrSkip("KarafFeatureTest");
        String version = ItestFiles.required("conduit.itest.version");
        boolean offline = "offline:true".equals(System.getProperty("conduit.itest.offline"));
        String features = Files.readString(Path.of(ItestFiles.required("conduit.itest.featuresXml")));
        for (String fragment : ItestFiles.ALL_EPOLL_FRAGMENTS) {
            String arch = fragment.substring("io.conduit.epoll.linux.".length());
            assertEquals(ItestFiles.epollFragments().contains(fragment),
                    features.contains("mvn:io.conduit/conduit-native-epoll-linux-" + arch + "/"),
                    "the feature lists the " + arch + " fragment exactly when the build made its library:\n" + features);
        }
        for (String fragment : ItestFiles.iouringFragments()) {
            String arch = fragment.substring("io.conduit.iouring.linux.".length());
            assertTrue(features.contains("mvn:io.conduit/conduit-native-iouring-linux-" + arch + "/"),
                    "the feature lists the io_uring " + arch + " fragment the build made:\n" + features);
        }

        try (KarafHost karaf = KarafHost.unpack(Path.of(ItestFiles.required("conduit.itest.target"), "karaf-test"),
                jdk17, offline)) {
            karaf.start(90);
            long bootMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);

            String repoAdd = karaf.client("feature:repo-add mvn:io.conduit/conduit-itest/" + version
                    + "/xml/features\nfeature:install conduit\n");
            assertTrue(!repoAdd.contains("Error") && !repoAdd.contains("Exception"),
                    "feature:repo-add / feature:install failed:\n" + repoAdd + karaf.logTail());

            // The API bundle's commands are plain services: Karaf's shell picks them up once the bundle started.
            String transports = "";
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (System.nanoTime() < deadline && !NIO_AVAILABLE.matcher(transports).find()) {
                transports = karaf.client("conduit:transports | cat\n");
            }
            String bundles = karaf.client("bundle:list -s\n");
            System.out.println("--- Karaf " + karaf.home.getFileName() + " on " + jdk17 + ": conduit:transports\n"
                    + transports + "\n--- bundle:list -s\n" + bundles);

            assertTrue(NIO_AVAILABLE.matcher(transports).find(), "nio must be listed as available:\n" + transports
                    + karaf.logTail());
            for (String bsn : List.of("io.conduit.api", "io.conduit.nio", "io.conduit.epoll", "io.conduit.iouring",
                    "io.conduit.kqueue")) {
                assertTrue(Pattern.compile("(?m)\\bActive\\b.*\\b" + Pattern.quote(bsn) + "$").matcher(bundles).find(),
                        bsn + " must be Active:\n" + bundles);
            }
            // the feature lists exactly the fragments the build made (no library-less foreign fragment)
            for (String fragment : ItestFiles.ALL_EPOLL_FRAGMENTS) {
                if (!ItestFiles.epollFragments().contains(fragment)) {
                    assertFalse(bundles.contains(fragment), fragment + " was not built, so not listed:\n" + bundles);
                    continue;
                }
                assertTrue(Pattern.compile("(?m)\\bResolved\\b.*\\b" + Pattern.quote(fragment) + "$").matcher(bundles)
                        .find(), fragment + " must be a Resolved fragment:\n" + bundles);
            }
            // epoll's library loaded from this machine's fragment inside Karaf, and auto prefers it.
            assertTrue(EPOLL_SELECTED.matcher(transports).find(), "epoll must be available and selected:\n"
                    + transports + karaf.logTail());

            // io_uring: its fragments attach, its library loads, auto leaves it; conduit:use selects it and back
            for (String fragment : ItestFiles.iouringFragments()) {
                assertTrue(Pattern.compile("(?m)\\bResolved\\b.*\\b" + Pattern.quote(fragment) + "$")
                        .matcher(bundles).find(), fragment + " must be a Resolved fragment:\n" + bundles);
            }
            assertTrue(IOURING_AVAILABLE.matcher(transports).find(), "io_uring must be available, not selected:\n"
                    + transports + karaf.logTail());
            String use = karaf.client("conduit:use io_uring | cat\nconduit:transports | cat\n");
            System.out.println("--- conduit:use io_uring\n" + use);
            assertTrue(use.contains("selected: io_uring"), "conduit:use io_uring selects it:\n" + use
                    + karaf.logTail());
            String back = karaf.client("conduit:use | cat\nconduit:transports | cat\n");
            assertTrue(EPOLL_SELECTED.matcher(back).find(), "conduit:use without argument gives epoll back:\n"
                    + back + karaf.logTail());

            // The conduit-health feature registers the three health checks as services in Karaf.
            String install = karaf.client("feature:install conduit-health\n");
            assertTrue(!install.contains("Error") && !install.contains("Exception"),
                    "feature:install conduit-health failed:\n" + install + karaf.logTail());
            String checks = "";
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (System.nanoTime() < deadline && !checks.contains("Conduit buffer leaks")) {
                checks = karaf.client("service:list org.apache.felix.hc.api.HealthCheck\n");
            }
            System.out.println("--- service:list org.apache.felix.hc.api.HealthCheck\n" + checks);
            for (String name : List.of("Conduit transport", "Conduit endpoints", "Conduit buffer leaks")) {
                assertTrue(checks.contains("hc.name = " + name), name + " is registered:\n" + checks
                        + karaf.logTail());
            }

            karaf.stop();
            System.out.println("KarafFeatureTest: SSH up after " + bootMillis + " ms, whole test "
                    + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos) + " ms");
        }
    }
}
