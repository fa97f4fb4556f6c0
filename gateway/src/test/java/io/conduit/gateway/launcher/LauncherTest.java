package io.conduit.gateway.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.logging.Level;
import java.util.logging.LogRecord;

import io.conduit.gateway.services.GatewayServices;
import org.junit.jupiter.api.Test;

/**
 * The launcher's checks and texts: {@code conduit.gateway.bannerTimeoutMillis} is a positive whole number or an
 * error naming it; a banner whose time is up says what is still starting; FileInstall's records are one line; the
 * files the banner waits for.
 */
class LauncherTest {

    /**
     * The shell's default follows standard input only: {@code conduit-gateway 2>&1 | tee log} has a user at the
     * terminal, and got no shell while the launcher asked {@code System.console()} (null unless standard output is a
     * terminal too). {@code --shell} runs it on standard input that is not a terminal, {@code --no-shell} never.
     */
    @Test
    void theShellFollowsStandardInputAndBothOptionsOverrideIt() {
        assertTrue(Options.parse(new String[0], true).shell());
        assertFalse(Options.parse(new String[0], false).shell());
        assertFalse(Options.parse(new String[] {"--no-shell"}, true).shell());
        assertTrue(Options.parse(new String[] {"--shell"}, false).shell());
        assertTrue(Options.isTerminalDevice("/dev/pts/3"));
        assertTrue(Options.isTerminalDevice("/dev/tty1"));
        assertTrue(Options.isTerminalDevice("/dev/console"));
        assertFalse(Options.isTerminalDevice("/dev/null"));
        assertFalse(Options.isTerminalDevice("pipe:[81234]"));
        assertFalse(Options.isTerminalDevice("socket:[81235]"));
        assertFalse(Options.isTerminalDevice("/home/me/commands.txt"));
        // surefire's forked JVM reads its commands from a pipe: not a terminal
        assertFalse(Options.stdinIsTerminal());
    }

    /**
     * {@code --shell --no-shell} contradict each other: a usage error (one line, then the usage, status 2) like an
     * unknown option, not whichever came last (a fresh user's trial found it accepted). Saying one twice is fine.
     */
    @Test
    void shellAndNoShellTogetherAreAUsageError() {
        for (String[] both : List.of(new String[] {"--shell", "--no-shell"}, new String[] {"--no-shell", "--conf",
                "/tmp", "--shell"})) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Options.read(both, true),
                    String.join(" ", both));
            assertEquals("--shell and --no-shell contradict each other: give one of them", e.getMessage());
        }
        assertTrue(Options.read(new String[] {"--shell", "--shell"}, false).shell());
        assertFalse(Options.read(new String[] {"--no-shell", "--no-shell"}, true).shell());
        assertEquals("unknown option '--shel'", assertThrows(IllegalArgumentException.class,
                () -> Options.read(new String[] {"--shel"}, true)).getMessage());
        assertEquals("--conf needs a directory", assertThrows(IllegalArgumentException.class,
                () -> Options.read(new String[] {"--conf"}, true)).getMessage());
        assertEquals(null, Options.read(new String[] {"--help"}, true), "--help: the usage, status 0");
    }

    /**
     * An exception out of the run is exit status 1 with one line and the stack trace, not a main thread that dies
     * while the framework's threads keep the JVM up (an emulated 32-bit JVM failed to list {@code bundles/} so).
     */
    /**
     * The shell on standard input that is not a terminal asks jline for a dumb terminal, which jline then makes
     * without its {@code WARNING org.jline: Unable to create a system terminal, creating a dumb terminal}, whatever the
     * user set: with {@code -Dorg.jline.terminal.dumb=false} jline made no terminal on a pipe and the gateway waited
     * for a script nobody read. A shell on a terminal sets nothing.
     */
    @Test
    void theShellOnAPipeAsksJlineForADumbTerminalWhateverTheUserSaid() {
        String before = System.getProperty(Options.JLINE_DUMB_PROPERTY);
        try {
            System.clearProperty(Options.JLINE_DUMB_PROPERTY);
            assertFalse(Options.useDumbTerminal(false));
            assertEquals(null, System.getProperty(Options.JLINE_DUMB_PROPERTY));
            assertTrue(Options.useDumbTerminal(true));
            assertEquals("true", System.getProperty(Options.JLINE_DUMB_PROPERTY));
            System.setProperty(Options.JLINE_DUMB_PROPERTY, "false");
            assertTrue(Options.useDumbTerminal(true));
            assertEquals("true", System.getProperty(Options.JLINE_DUMB_PROPERTY));
        } finally {
            if (before == null) {
                System.clearProperty(Options.JLINE_DUMB_PROPERTY);
            } else {
                System.setProperty(Options.JLINE_DUMB_PROPERTY, before);
            }
        }
    }

    /**
     * A script's last line without a line end is a whole line ({@code printf 'exit 4'} ended with status 0: the line
     * reader got an unfinished line at the end of the input, which Gogo drops); the end of the input ends the
     * script's output, as {@code exit} does, and output after that is dropped.
     */
    @Test
    void aScriptsLastLineNeedsNoLineEndAndItsEndEndsTheOutput() throws Exception {
        java.io.ByteArrayOutputStream stdout = new java.io.ByteArrayOutputStream();
        ScriptTerminal.ScriptOutput out = new ScriptTerminal.ScriptOutput(stdout);
        ScriptTerminal.ScriptInput in = new ScriptTerminal.ScriptInput(new java.io.ByteArrayInputStream(
                "conduit:status\nexit 4".getBytes(java.nio.charset.StandardCharsets.US_ASCII)), out);
        out.write("before".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        assertEquals("conduit:status\nexit 4\n", new String(in.readAllBytes(),
                java.nio.charset.StandardCharsets.US_ASCII));
        assertEquals(-1, in.read(), "one line end, then the end");
        out.write("after".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        out.flush();
        assertEquals("before", stdout.toString(java.nio.charset.StandardCharsets.US_ASCII));

        ScriptTerminal.ScriptInput whole = new ScriptTerminal.ScriptInput(new java.io.ByteArrayInputStream(
                "a\nb\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII)), null);
        assertEquals('a', whole.read());
        assertEquals("\nb\n", new String(whole.readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII),
                "a line end of its own: none added");
        ScriptTerminal.ScriptInput empty = new ScriptTerminal.ScriptInput(new java.io.ByteArrayInputStream(
                new byte[0]), null);
        assertEquals(-1, empty.read(), "an empty script stays empty");
    }

    @Test
    void anExceptionOutOfTheRunIsExitStatusOneWithOneLineAndTheStackTrace() {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        java.io.PrintStream err = new java.io.PrintStream(bytes, true, java.nio.charset.StandardCharsets.UTF_8);
        int status = Main.guarded(() -> {
            throw new java.nio.file.DirectoryIteratorException(new java.nio.file.FileSystemException(
                    "/opt/gateway/bundles: Value too large for defined data type"));
        }, err);
        String text = bytes.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(Main.EXIT_START_FAILED, status);
        assertEquals(1, status);
        assertTrue(text.startsWith("conduit-gateway: the gateway failed and stops (exit status 1): "
                + "java.nio.file.DirectoryIteratorException: java.nio.file.FileSystemException: /opt/gateway/bundles: "
                + "Value too large for defined data type; the stack trace follows\n"), text);
        assertTrue(text.contains("\tat "), "the stack trace: " + text);
        assertEquals(7, Main.guarded(() -> 7, err), "a run that returns gives its status");
    }

    @Test
    void fileInstallReadsEveryCfgAndConfigButTheGatewaysFactoryPidsWithoutAName() {
        java.util.regex.Pattern filter = java.util.regex.Pattern.compile(FrameworkBoot.FILEINSTALL_FILTER);
        for (String read : java.util.List.of("io.conduit.gateway.echo-default.cfg", "io.conduit.gateway.relay-a.config",
                "io.conduit.transport.cfg", "io.conduit.gateway.echoo.cfg", "io.conduit.gateway.echo.cfg.cfg")) {
            assertTrue(filter.matcher(read).matches(), read);
        }
        for (String left : java.util.List.of("io.conduit.gateway.echo.cfg", "io.conduit.gateway.relay.cfg",
                "io.conduit.gateway.echo.config", "io.conduit.gateway.relay-example.cfg.example", "notes.txt")) {
            assertFalse(filter.matcher(left).matches(), left);
        }
    }

    @Test
    void theBannerTimeoutIsAPositiveWholeNumberOfMilliseconds() {
        assertEquals(15_000, Options.bannerTimeoutMillis(null));
        assertEquals(100, Options.bannerTimeoutMillis("100"));
        assertEquals(1, Options.bannerTimeoutMillis(" 1 "));
        assertEquals(Integer.MAX_VALUE, Options.bannerTimeoutMillis(Integer.toString(Integer.MAX_VALUE)));
        for (String bad : List.of("abc", "-5", "0", "", "1.5", "2147483648", "15s")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> Options.bannerTimeoutMillis(bad), bad);
            assertEquals("system property conduit.gateway.bannerTimeoutMillis='" + bad + "' is not valid; allowed "
                    + "values: a whole number of milliseconds from 1 to 2147483647 (how long the banner waits for the "
                    + "configurations to report); default: 15000", e.getMessage());
        }
    }

    @Test
    void aBannerWhoseTimeIsUpSaysWhatIsStillStarting() {
        assertEquals("  still starting after 100 ms (conduit.gateway.bannerTimeoutMillis): the transport selection, "
                + "io.conduit.gateway.echo-default.cfg; reported below once up", Banner.stillStarting(100,
                        List.of("the transport selection", "io.conduit.gateway.echo-default.cfg")));
    }

    @Test
    void fileInstallRecordsAreOneLineWithTheInnermostCause() {
        LogRecord r = new LogRecord(Level.SEVERE, "Failed to install artifact: /gw/conf/a-b.cfg");
        r.setLoggerName("fileinstall");
        r.setThrown(new RuntimeException(new IllegalArgumentException("Key [] must not be an empty string")));
        String line = new LogFormat.OneLineFormatter().format(r);
        assertTrue(line.matches("\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d SEVERE fileinstall: Failed to install "
                + "artifact: /gw/conf/a-b.cfg: java.lang.IllegalArgumentException: Key \\[\\] must not be an empty "
                + "string\\R"), line);
        assertFalse(line.contains("\tat "), line);
    }

    @Test
    void theUsageNamesEveryOptionHelpIncluded() {
        String usage = Options.usageText();
        assertTrue(usage.startsWith("usage: conduit-gateway [--no-shell | --shell] [--conf DIR] [--help]\n"), usage);
        for (String option : List.of("--no-shell", "--shell", "--conf DIR", "--help")) {
            assertTrue(usage.contains("\n  " + option + " "), option + " has a line:\n" + usage);
        }
    }

    @Test
    void theLogManagerIsNamedByItsClassNameWithoutLoadingIt() {
        // a rename of ShutdownLogManager must follow in the string that names it to java.util.logging
        assertEquals(ShutdownLogManager.class.getName(), LogFormat.SHUTDOWN_LOG_MANAGER);
        assertEquals("java.util.logging.manager", LogFormat.MANAGER_PROPERTY);
    }

    @Test
    void theBannerWaitsForTheGatewaysComponentFilesWithOrWithoutAName() {
        for (String f : List.of("io.conduit.gateway.echo-default.cfg", "io.conduit.gateway.relay-r.config",
                "io.conduit.gateway.echo.cfg", "io.conduit.gateway.relay-.cfg", "io.conduit.gateway.metrics.cfg")) {
            assertTrue(Banner.COMPONENT_CONFIG.matcher(f).matches(), f);
        }
        for (String f : List.of("io.conduit.gateway.echoo-x.cfg", "io.conduit.transport.cfg",
                "io.conduit.gateway.echo-default.cfg.example")) {
            assertFalse(Banner.COMPONENT_CONFIG.matcher(f).matches(), f);
        }
    }

    @Test
    void theFilesTheLauncherSelectsAreNamedAfterTheBundlesFactoryPids() {
        java.util.regex.Pattern filter = java.util.regex.Pattern.compile(FrameworkBoot.FILEINSTALL_FILTER);
        for (String pid : List.of(GatewayServices.ECHO_FACTORY_PID, GatewayServices.RELAY_FACTORY_PID)) {
            assertTrue(Banner.COMPONENT_CONFIG.matcher(pid + "-a.cfg").matches(), pid);
            assertTrue(filter.matcher(pid + "-a.cfg").matches(), pid);
            assertFalse(filter.matcher(pid + ".cfg").matches(), pid);
        }
        String metrics = GatewayServices.METRICS_PID + ".cfg"; // a singleton PID: read without a name
        assertTrue(Banner.COMPONENT_CONFIG.matcher(metrics).matches(), metrics);
        assertTrue(filter.matcher(metrics).matches(), metrics);
    }
}
