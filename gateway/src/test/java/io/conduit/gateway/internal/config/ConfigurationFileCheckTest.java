package io.conduit.gateway.internal.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;

import io.conduit.gateway.internal.config.ConfigurationFileCheck.FileName;
import io.conduit.gateway.internal.config.ConfigurationFileCheck.Known;
import org.junit.jupiter.api.Test;

/**
 * Which files of the configuration directory nothing would apply, and why, in the words of the WARNING line: names
 * as FileInstall reads them, PIDs as the framework reads them, keys as Configuration Admin accepts them.
 */
class ConfigurationFileCheckTest {

    /** The distribution's PIDs: the gateway's factories, the API's transport PID, SCR's and FileInstall's. */
    private static final Known DISTRIBUTION = new Known(
            Set.of("io.conduit.transport", "org.apache.felix.scr.ScrService"),
            Set.of("io.conduit.gateway.echo", "io.conduit.gateway.relay", "org.apache.felix.fileinstall"),
            Set.of("io.conduit.internal.nio.NioTransportProvider"));

    private static final String KNOWN = "; known names: io.conduit.gateway.echo-<name>, io.conduit.gateway.relay-<name>, "
            + "io.conduit.transport, org.apache.felix.fileinstall-<name>, org.apache.felix.scr.ScrService (each .cfg or "
            + ".config)";

    @Test
    void fileNamesAreReadAsFileInstallReadsThem() {
        assertEquals(new FileName("io.conduit.gateway.relay-redis-2.cfg", "io.conduit.gateway.relay", "redis-2"),
                FileName.of("io.conduit.gateway.relay-redis-2.cfg"), "the factory PID ends at the first '-'");
        assertEquals("io.conduit.gateway.relay~redis-2",
                FileName.of("io.conduit.gateway.relay-redis-2.cfg").configurationPid());
        assertEquals(new FileName("io.conduit.transport.cfg", "io.conduit.transport", null),
                FileName.of("io.conduit.transport.cfg"));
        assertEquals(new FileName("-x.config", "-x", null), FileName.of("-x.config"), "a '-' first is part of the PID");
        assertEquals(".config", FileName.of("a-b.config").extension());
    }

    @Test
    void filesThatSomeComponentReadsHaveNoProblem() {
        for (String f : List.of("io.conduit.gateway.echo-default.cfg", "io.conduit.gateway.relay-r.config",
                "io.conduit.transport.cfg", "org.apache.felix.fileinstall-more.cfg",
                "org.apache.felix.scr.ScrService.cfg", "io.conduit.internal.nio.NioTransportProvider.cfg",
                "io.conduit.internal.nio.NioTransportProvider-x.cfg", "io.conduit.transport|io.conduit.api.cfg")) {
            assertNull(ConfigurationFileCheck.nameProblem(FileName.of(f), DISTRIBUTION), f);
        }
    }

    @Test
    void aMisspeltPidIsIgnoredNamingTheFileItShouldBeOrElseTheKnownNames() {
        assertEquals("ignored: no component reads factory PID 'io.conduit.gateway.echoo' (did you mean "
                + "io.conduit.gateway.echo-typo.cfg?)",
                ConfigurationFileCheck.nameProblem(FileName.of("io.conduit.gateway.echoo-typo.cfg"), DISTRIBUTION));
        assertEquals("ignored: no component reads PID 'io.conduit.transprot' (did you mean io.conduit.transport.config?)",
                ConfigurationFileCheck.nameProblem(FileName.of("io.conduit.transprot.config"), DISTRIBUTION));
        assertEquals("ignored: no component reads factory PID 'relay' (did you mean io.conduit.gateway.relay-redis.cfg?)",
                ConfigurationFileCheck.nameProblem(FileName.of("relay-redis.cfg"), DISTRIBUTION),
                "a known PID ending in the one written");
        assertEquals("ignored: no component reads PID 'io.conduit.gateway.echo.main' (did you mean "
                + "io.conduit.gateway.echo-main.cfg?)",
                ConfigurationFileCheck.nameProblem(FileName.of("io.conduit.gateway.echo.main.cfg"), DISTRIBUTION),
                "the alias after another separator than '-'");
        assertEquals("ignored: no component reads PID 'notes'" + KNOWN,
                ConfigurationFileCheck.nameProblem(FileName.of("notes.cfg"), DISTRIBUTION), "nothing close: no guess");
    }

    @Test
    void aFactoryPidWithoutANameAndASingletonPidWithOneSaySo() {
        assertEquals("ignored: 'io.conduit.gateway.echo' takes factory configurations only, one file each named "
                + "io.conduit.gateway.echo-<name>.cfg: rename the file (e.g. to io.conduit.gateway.echo-1.cfg)",
                ConfigurationFileCheck.nameProblem(FileName.of("io.conduit.gateway.echo.cfg"), DISTRIBUTION));
        assertEquals("ignored: 'io.conduit.transport' takes one configuration, not factory configurations ('-nio'): "
                + "name the file io.conduit.transport.cfg",
                ConfigurationFileCheck.nameProblem(FileName.of("io.conduit.transport-nio.cfg"), DISTRIBUTION));
    }

    /** The metrics endpoint's PID is read from one file without a name; with a name it is refused, as metrics. */
    @Test
    void theMetricsEndpointTakesOneFileWithoutAName() {
        Known known = new Known(Set.of("io.conduit.transport", "io.conduit.gateway.metrics"),
                Set.of("io.conduit.gateway.echo", "io.conduit.gateway.relay"), Set.of());
        assertEquals(null, ConfigurationFileCheck.nameProblem(FileName.of("io.conduit.gateway.metrics.cfg"), known));
        assertEquals("ignored: 'io.conduit.gateway.metrics' takes one configuration, not factory configurations ('-x'):"
                + " name the file io.conduit.gateway.metrics.cfg",
                ConfigurationFileCheck.nameProblem(FileName.of("io.conduit.gateway.metrics-x.cfg"), known));
        assertEquals("metrics", ConfigurationFileWatch.kind(FileName.of("io.conduit.gateway.metrics-x.cfg")));
    }

    @Test
    void anEmptyKeyIsNamedWithItsLine() {
        String problem = ConfigurationFileCheck.contentProblem(
                "listen = tcp://127.0.0.1:18007\n= x\nupstream = tcp://127.0.0.1:7007\n");
        assertEquals("line 2 ('= x') has an empty key, which Configuration Admin rejects (FileInstall: 'Key [] must "
                + "not be an empty string'): write it as 'key = value' or delete it", problem);
        assertTrue(ConfigurationFileCheck.contentProblem("# comment\n\n   : y\n").startsWith("line 3 (': y')"),
                "':' separates too");
        assertTrue(ConfigurationFileCheck.contentProblem("a = b\n\\\n  = y\n").startsWith("line 3 ('= y')"),
                "a lone backslash continues on the next line, where the empty key is");
    }

    @Test
    void keysThatDifferOnlyInCaseAreNamedWithTheirLines() {
        assertEquals("keys 'listen' (line 1) and 'LISTEN' (line 3) differ only in case, which Configuration Admin "
                + "rejects (FileInstall: 'Key [listen] already present in different case'): keep one of them",
                ConfigurationFileCheck.contentProblem("listen = a\n# x\nLISTEN = b\n"));
    }

    @Test
    void whatConfigurationAdminAcceptsIsNoProblem() {
        for (String text : List.of("", "listen = a\nlisten = b\n", "# = comment\n! = comment too\n",
                "\\= = escaped separator\n", "a = b \\\n  = continued value\n", "a = b \\\n# part of the value\n",
                "key\n", "a=b\r\nc=d\r\n", "listen = \"tcp://127.0.0.1:1\"\n")) {
            assertNull(ConfigurationFileCheck.contentProblem(text), text);
        }
    }

    @Test
    void keysAreReadWithPropertiesEscapes() {
        assertEquals(List.of("a b", "c:d", "\u00e9", "e"), ConfigurationFileCheck.keys(
                "a\\ b = 1\nc\\:d: 2\n\\u00e9 3\n  e\n").stream().map(ConfigurationFileCheck.Key::key).toList());
    }
}
