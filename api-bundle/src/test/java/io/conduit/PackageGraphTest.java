package io.conduit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.Manifest;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import io.conduit.buffer.Buffer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The package graph of the API bundle, read from its compiled classes (every dependency the bytecode has:
 * field and parameter types, calls, {@code instanceof}, supertypes, generic signatures; not javadoc).
 *
 * <p>Four rules, each of which names the offending class and dependency when it fails:
 * <ol>
 * <li>The lower layers ({@link PackageGraph#LOWER_LAYERS}) depend on nothing above them.</li>
 * <li>No cycle among the lower layers' packages, except an API package with its own implementation package.</li>
 * <li>The cycles that remain among the upper packages are frozen ({@link #KNOWN_CYCLE_EDGES}): an edge that
 *     lies on a package cycle and is not listed fails, and so does a listed edge that no longer lies on one.</li>
 * <li>No public or protected signature of an exported package mentions a type of an {@code internal} package.</li>
 * </ol>
 */
class PackageGraphTest {

    /**
     * Every package edge (from → to, without {@code io.conduit.}) that lies on a dependency cycle today, outside
     * the API-package ↔ own-implementation pairs of the lower layers. This list may only shrink: a new edge on a
     * cycle fails the build, and an edge that is no longer on a cycle must be removed from here (the test says
     * which), so a cycle once broken stays broken.
     *
     * <p>What is left is one cycle inside the transport selection: its API ({@code transport}), the SPI a
     * transport implements ({@code transport.spi}) and the registry behind {@code Transports}
     * ({@code internal.transport}). A {@code TransportProvider} makes {@code Transport}s and reports an
     * {@code Availability}; {@code Transports.register(TransportProvider)} and {@code Transports.providers()} take and
     * return providers, and {@code Transports} delegates to the registry, which implements the API's types. Breaking
     * it means moving {@code register}/{@code providers} out of {@code Transports}, a public API change.
     */
    static final Set<String> KNOWN_CYCLE_EDGES = Set.of(
            "internal.transport -> transport",
            "internal.transport -> transport.spi",
            "transport -> internal.transport",
            "transport -> transport.spi",
            "transport.spi -> transport");

    private static PackageGraph graph;
    private static JavaClasses classes;

    @BeforeAll
    static void importMainClasses() throws URISyntaxException {
        Path mainClasses = Path.of(Buffer.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        classes = new ClassFileImporter()
                .withImportOption(location -> !location.contains("module-info"))
                .importPath(mainClasses);
        graph = PackageGraph.of(classes, "io.conduit");
        for (PackageGraph.Layer layer : PackageGraph.LOWER_LAYERS) {
            for (String p : layer.packages()) {
                assertTrue(graph.packages().contains(p), "no class of lower-layer package " + p
                        + " was imported; was it renamed? Update PackageGraph.LOWER_LAYERS");
            }
        }
    }

    @Test
    void lowerLayersDependOnNothingAboveThem() {
        List<String> violations = graph.upwardDependenciesOfLowerLayers();
        assertTrue(violations.isEmpty(), "the lower layers (" + PackageGraph.describeLowerLayers()
                + ") may depend only on their own layer and the layers below:\n" + String.join("\n", violations));
    }

    @Test
    void lowerLayersHaveNoPackageCycle() {
        List<String> violations = graph.cyclesThroughLowerLayers();
        assertTrue(violations.isEmpty(), "a package cycle reaches a lower layer; the only cycle allowed there is an "
                + "API package with its own implementation package (e.g. buffer ↔ internal.buffer):\n"
                + String.join("\n", violations));
    }

    @Test
    void remainingCyclesAreFrozen() {
        List<String> problems = graph.cycleEdgeChanges(KNOWN_CYCLE_EDGES);
        assertTrue(problems.isEmpty(), String.join("\n", problems) + "\nEdges on a cycle today, for "
                + "KNOWN_CYCLE_EDGES (it may only shrink):\n" + graph.cycleEdgesAsJava());
    }

    @Test
    void exportedSignaturesMentionNoInternalType() throws IOException {
        Set<String> exported = exportedPackages();
        for (String p : exported) {
            assertTrue(graph.packages().contains(p), "Export-Package names " + p + " but no class of it was imported");
        }
        List<String> violations = ApiSignatures.internalTypesIn(classes, exported);
        assertTrue(violations.isEmpty(), "a public or protected signature of an exported package mentions an internal "
                + "type:\n" + String.join("\n", violations));
    }

    /** The rules themselves, on a small graph whose answers are known. */
    @Test
    void rulesReportWhatTheyFind() {
        Map<String, Map<String, List<String>>> edges = new TreeMap<>();
        PackageGraph.addEdge(edges, "io.conduit.buffer", "io.conduit.internal.buffer", "Buffer -> Allocators");
        PackageGraph.addEdge(edges, "io.conduit.internal.buffer", "io.conduit.buffer", "Allocators -> Buffer");
        PackageGraph.addEdge(edges, "io.conduit.internal.buffer", "io.conduit.channel", "Pool -> Channel");
        PackageGraph.addEdge(edges, "io.conduit.channel", "io.conduit.buffer", "Channel -> Buffer");
        PackageGraph.addEdge(edges, "io.conduit.channel", "io.conduit.transport", "Channel -> Transport");
        PackageGraph.addEdge(edges, "io.conduit.transport", "io.conduit.channel", "Transport -> Channel");
        PackageGraph g = new PackageGraph("io.conduit", edges);

        List<String> upward = g.upwardDependenciesOfLowerLayers();
        assertEquals(1, upward.size(), upward.toString());
        assertTrue(upward.get(0).contains("internal.buffer → channel") && upward.get(0).contains("Pool -> Channel"),
                upward.get(0));

        List<String> cycles = g.cyclesThroughLowerLayers();
        assertEquals(1, cycles.size(), cycles.toString());
        assertTrue(cycles.get(0).contains("channel") && cycles.get(0).contains("buffer"), cycles.get(0));

        // transport ↔ channel is known; the buffer/channel cycle is new, and "transport → buffer" is stale
        List<String> changes = g.cycleEdgeChanges(Set.of("channel -> transport", "transport -> channel",
                "transport -> buffer"));
        assertTrue(changes.stream().anyMatch(s -> s.startsWith("new edge on a cycle: channel -> buffer")
                && s.contains("Channel -> Buffer")), changes.toString());
        assertTrue(changes.stream().anyMatch(s -> s.startsWith("new edge on a cycle: internal.buffer -> channel")),
                changes.toString());
        assertTrue(changes.stream().anyMatch(s -> s.startsWith("no longer on a cycle: transport -> buffer")),
                changes.toString());
        assertFalse(changes.stream().anyMatch(s -> s.contains(": buffer -> internal.buffer")),
                "an API package with its own implementation is rule 2's business: " + changes);
    }

    /** Rule 4 on fixtures whose signatures are known ({@code io.conduit.archfixture}, test classes). */
    @Test
    void signatureRuleNamesMemberAndType() throws URISyntaxException {
        Path testClasses = Path.of(PackageGraphTest.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        JavaClasses fixtures = new ClassFileImporter().importPath(testClasses.resolve("io/conduit/archfixture"));
        List<String> violations = ApiSignatures.internalTypesIn(fixtures, Set.of("io.conduit.archfixture.api"));
        String all = String.join("\n", violations);
        for (String member : List.of("Leaky.field", "Leaky.returns()", "Leaky.takes(", "Leaky.generic(",
                "Leaky.throwing()", "LeakySub extends", "Leaky$Nested", "Leaky.<init>(")) {
            assertTrue(all.contains(member), "expected a violation naming " + member + " in:\n" + all);
        }
        assertFalse(all.contains("hidden"), "private and package-private members are no API:\n" + all);
        assertFalse(all.contains("Clean"), all);
        assertTrue(all.contains("io.conduit.archfixture.internal.Secret"), all);
    }

    /** Export-Package of the manifest bnd wrote for this bundle (the packages other bundles can import). */
    private static Set<String> exportedPackages() throws IOException {
        Path manifest;
        try {
            manifest = Path.of(Buffer.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                    .resolve("META-INF/MANIFEST.MF");
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        if (!Files.isRegularFile(manifest)) {
            fail(manifest + " is missing: bnd-maven-plugin writes it in process-classes; run the tests through Maven");
        }
        String header;
        try (InputStream in = Files.newInputStream(manifest)) {
            header = new Manifest(in).getMainAttributes().getValue("Export-Package");
        }
        assertTrue(header != null && !header.isBlank(), "no Export-Package in " + manifest);
        Set<String> names = new TreeSet<>();
        for (String clause : splitOutsideQuotes(header, ',')) {
            names.add(splitOutsideQuotes(clause, ';').get(0).trim());
        }
        return names;
    }

    /** Splits an OSGi header at {@code separator}, except inside double quotes ({@code uses:="a,b"}). */
    static List<String> splitOutsideQuotes(String s, char separator) {
        List<String> parts = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"') {
                quoted = !quoted;
            }
            if (c == separator && !quoted) {
                parts.add(current.toString());
                current.setLength(0);
            } else {
                current.append(c);
            }
        }
        parts.add(current.toString());
        return parts;
    }

    @Test
    void headerSplittingKeepsQuotedLists() {
        assertEquals(List.of("a;version=\"1\";uses:=\"b,c\"", "d"), splitOutsideQuotes("a;version=\"1\";uses:=\"b,c\",d", ','));
    }
}
