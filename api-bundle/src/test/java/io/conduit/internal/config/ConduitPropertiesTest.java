package io.conduit.internal.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/** The one rule every Conduit system property follows, and the documentation's tables of them. */
public class ConduitPropertiesTest {

    /** A malformed value of every property that has one, other than the preference (the selection parses that). */
    public static final Map<String, String> MALFORMED = Map.ofEntries(
            Map.entry("conduit.transport.strict", "yes"),
            Map.entry("conduit.noNative", "maybe"),
            Map.entry("conduit.noUnsafe", "maybe"),
            Map.entry("conduit.native.workdir", " "),
            Map.entry("conduit.native.deleteLibAfterLoading", "maybe"),
            Map.entry("conduit.kqueue.emulation", "on"),
            Map.entry("conduit.kqueue.emulation.library", ""),
            Map.entry("conduit.leakDetection", "bogus"),
            Map.entry("conduit.maxDirectMemory", "abc"),
            Map.entry("conduit.epoll.busyWait", "1"),
            Map.entry("conduit.recycler.maxCapacityPerThread", "-1"),
            Map.entry("conduit.jmx", "off"),
            Map.entry("conduit.metrics", "no"));

    @Test
    void everyPropertyButThePreferenceHasAMalformedValueThatIsAProblemNamingPropertyAndValue() {
        List<String> expected = new ArrayList<>(ConduitProperties.DEFAULTS.keySet());
        expected.remove(ConduitProperties.TRANSPORT);
        assertEquals(expected.size(), MALFORMED.size(), "one malformed value per property");
        for (Map.Entry<String, String> e : MALFORMED.entrySet()) {
            ConduitProperties props = ConduitProperties.of(Map.of(e.getKey(), e.getValue()));
            List<IllegalArgumentException> problems = props.problems();
            assertEquals(1, problems.size(), e.toString());
            String m = problems.get(0).getMessage();
            assertTrue(m.startsWith("system property " + e.getKey() + "='" + e.getValue() + "' is not "), m);
            assertTrue(m.contains("allowed values: ") && m.contains("; default: "), m);
            assertFalse(props.isValid(e.getKey()), e.toString());
        }
    }

    @Test
    void problemsComeInDocumentationOrderAndValidValuesAreNone() {
        ConduitProperties bad = ConduitProperties.of(Map.of("conduit.recycler.maxCapacityPerThread", "lots",
                "conduit.noUnsafe", "maybe", "conduit.transport", "a,,b"));
        List<IllegalArgumentException> problems = bad.problems();
        assertEquals(2, problems.size(), problems.toString());
        assertTrue(problems.get(0).getMessage().contains("conduit.noUnsafe"), problems.toString());
        assertTrue(problems.get(1).getMessage().contains("conduit.recycler.maxCapacityPerThread"), problems.toString());

        ConduitProperties good = ConduitProperties.of(Map.ofEntries(Map.entry("conduit.transport", "epoll, nio"),
                Map.entry("conduit.transport.strict", " TRUE "), Map.entry("conduit.noNative", "False"),
                Map.entry("conduit.noUnsafe", "true"), Map.entry("conduit.native.workdir", "/tmp/x"),
                Map.entry("conduit.native.deleteLibAfterLoading", "false"),
                Map.entry("conduit.kqueue.emulation", "true"), Map.entry("conduit.kqueue.emulation.library", "/a.so"),
                Map.entry("conduit.leakDetection", "PARANOID"), Map.entry("conduit.maxDirectMemory", "1048576"),
                Map.entry("conduit.epoll.busyWait", "true"), Map.entry("conduit.recycler.maxCapacityPerThread", "0")));
        assertEquals(List.of(), good.problems());
    }

    /**
     * {@code IO_URING} was accepted while the documentation called anything outside {@code [a-z0-9._-]} malformed.
     * Names are compared regardless of case, as {@code auto} and the booleans are; other characters are malformed.
     */
    @Test
    void preferenceNamesIgnoreCaseAndOtherCharactersAreMalformed() {
        assertEquals(List.of("io_uring", "nio"), ConduitProperties.parsePreference("p", " IO_URING, Nio"));
        assertEquals(List.of(), ConduitProperties.parsePreference("p", "AUTO"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ConduitProperties.parsePreference("p", "io uring"));
        assertEquals("p='io uring' has an invalid transport name 'io uring' (allowed characters: letters a-z in any"
                + " case, digits 0-9, '.', '_', '-'); expected 'auto' or an ordered comma-separated list of transport"
                + " names, e.g. 'epoll,nio'", e.getMessage());
    }

    @Test
    void theParsersUsedByEachPropertysCodeApplyTheSameRule() {
        assertEquals("paranoid", ConduitProperties.parseLeakDetection(" Paranoid "));
        assertEquals("simple", ConduitProperties.parseLeakDetection(null));
        assertThrows(IllegalArgumentException.class, () -> ConduitProperties.parseLeakDetection(""));
        assertEquals(12345, ConduitProperties.parseMaxDirectMemory(" 12345 "));
        assertEquals(-1, ConduitProperties.parseMaxDirectMemory(null));
        for (String bad : List.of("0", "-5", "1e9", "", "9223372036854775808")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> ConduitProperties.parseMaxDirectMemory(bad));
            assertTrue(e.getMessage().contains("conduit.maxDirectMemory='" + bad + "'")
                    && e.getMessage().contains("a whole number of bytes"), e.getMessage());
        }
        assertEquals(4096, ConduitProperties.parseRecyclerCapacity(null));
        assertEquals(0, ConduitProperties.parseRecyclerCapacity("0"));
        for (String bad : List.of("-1", " ", "lots", "2147483648")) {
            assertThrows(IllegalArgumentException.class, () -> ConduitProperties.parseRecyclerCapacity(bad), bad);
        }
        assertEquals("/x", ConduitProperties.parseText(ConduitProperties.NATIVE_WORKDIR, " /x "));
        assertThrows(IllegalArgumentException.class,
                () -> ConduitProperties.parseText(ConduitProperties.NATIVE_WORKDIR, "\t"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ConduitProperties.parseBoolean("conduit.x", "maybe", true));
        assertEquals("system property conduit.x='maybe' is not a boolean; allowed values: true, false"
                + " (case-insensitive); default: true", e.getMessage());
    }

    @Test
    void theDocumentedTableListsExactlyTheseProperties() throws IOException {
        List<String> names = new ArrayList<>(ConduitProperties.DEFAULTS.keySet());
        Path table = Path.of("..", "docs", "configuration.md");
        assertEquals(names, tableNames(table, "## System properties"), table.toString());
    }

    /** @return the property names in the first column of the first table after {@code heading} */
    private static List<String> tableNames(Path file, String heading) throws IOException {
        String text = Files.readString(file, StandardCharsets.UTF_8);
        int at = text.indexOf(heading);
        assertTrue(at >= 0, heading + " in " + file);
        List<String> names = new ArrayList<>();
        Pattern row = Pattern.compile("^\\| `(conduit\\.[A-Za-z.]+)` \\|");
        boolean inTable = false;
        for (String line : text.substring(at).split("\n")) {
            Matcher m = row.matcher(line);
            if (m.find()) {
                names.add(m.group(1));
                inTable = true;
            } else if (inTable && !line.startsWith("|")) {
                break;
            }
        }
        return names;
    }
}
