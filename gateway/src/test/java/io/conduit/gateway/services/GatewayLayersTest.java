package io.conduit.gateway.services;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;

import io.conduit.gateway.launcher.Main;
import org.junit.jupiter.api.Test;

/**
 * The gateway's packages depend on each other in one direction only, as DESIGN.md's gateway section draws them
 * ({@code jdeps} on the compiled classes): {@code services} ← {@code status} ← {@code network} ← {@code config} ←
 * {@code metrics}, {@code shell}; {@code metrics} ← {@code echo}, {@code relay}; the launcher only on {@code services}.
 */
class GatewayLayersTest {

    /** Each package's rank: a package may depend only on packages of a lower rank. */
    private static final Map<String, Integer> RANK = Map.of(
            "io.conduit.gateway.services", 0,
            "io.conduit.gateway.internal.status", 1,
            "io.conduit.gateway.internal.network", 2,
            "io.conduit.gateway.internal.config", 3,
            "io.conduit.gateway.internal.metrics", 4,
            "io.conduit.gateway.internal.shell", 4,
            "io.conduit.gateway.internal.echo", 5,
            "io.conduit.gateway.internal.relay", 5);
    /** Runs outside the framework: may depend on {@link #SERVICES} only, and nothing depends on it. */
    private static final String LAUNCHER = "io.conduit.gateway.launcher";
    private static final String SERVICES = "io.conduit.gateway.services";

    private static final Pattern EDGE = Pattern.compile("^\\s*(io\\.conduit\\.gateway[\\w.]*)\\s+->\\s+"
            + "(io\\.conduit\\.gateway[\\w.]*)\\s", Pattern.MULTILINE);

    @Test
    void packagesDependOnLowerLayersOnly() throws URISyntaxException {
        Path classes = Path.of(Main.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        ToolProvider jdeps = ToolProvider.findFirst("jdeps").orElseThrow();
        StringWriter out = new StringWriter();
        int rc = jdeps.run(new PrintWriter(out), new PrintWriter(out), "-verbose:package", "-filter:none",
                classes.toString());
        assertEquals(0, rc, out.toString());
        Matcher m = EDGE.matcher(out.toString());
        TreeSet<String> packages = new TreeSet<>();
        List<String> wrong = new ArrayList<>();
        int edges = 0;
        while (m.find()) {
            String from = m.group(1);
            String to = m.group(2);
            packages.add(from);
            packages.add(to);
            if (from.equals(to)) {
                continue;
            }
            edges++;
            if (from.equals(LAUNCHER) || to.equals(LAUNCHER)) {
                if (!from.equals(LAUNCHER) || !to.equals(SERVICES)) {
                    wrong.add(from + " -> " + to);
                }
                continue;
            }
            Integer f = RANK.get(from);
            Integer t = RANK.get(to);
            if (f == null || t == null || t >= f) {
                wrong.add(from + " -> " + to);
            }
        }
        TreeSet<String> known = new TreeSet<>(RANK.keySet());
        known.add(LAUNCHER);
        assertEquals(known, packages, "every gateway package has a rank");
        assertTrue(edges > 0, out.toString());
        assertEquals(List.of(), wrong);
    }
}
