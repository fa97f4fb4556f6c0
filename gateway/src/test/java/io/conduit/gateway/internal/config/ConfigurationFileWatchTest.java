package io.conduit.gateway.internal.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The configuration directory checked scan by scan: one publication per problem of a file FileInstall reads, none
 * for files that are fine or that FileInstall does not read, a withdrawal when the file is fixed, renamed or removed
 * or when a component that reads it appears, and nothing again for an unchanged problem.
 */
class ConfigurationFileWatchTest {

    @TempDir
    Path conf;

    private final List<String> events = new ArrayList<>();
    private final AtomicReference<ConfigurationFileCheck.Known> known = new AtomicReference<>(
            new ConfigurationFileCheck.Known(Set.of("io.conduit.transport"),
                    Set.of("io.conduit.gateway.echo", "io.conduit.gateway.relay"), Set.of()));

    private ConfigurationFileWatch watch() {
        return new ConfigurationFileWatch(conf, Pattern.compile(".*\\.(cfg|config)"), known::get,
                (file, pid, kind, problem) -> {
                    events.add("publish " + kind + " " + pid + " " + file + ": " + problem);
                    return () -> events.add("withdraw " + file);
                });
    }

    @Test
    void eachFileNothingAppliesIsPublishedOnceAndWithdrawnWhenFixedOrGone() throws Exception {
        Files.writeString(conf.resolve("io.conduit.gateway.echo-ok.cfg"), "listen = tcp://127.0.0.1:7007\n");
        Files.writeString(conf.resolve("io.conduit.gateway.echoo-typo.cfg"), "listen = tcp://127.0.0.1:7008\n");
        Files.writeString(conf.resolve("io.conduit.gateway.relay-emptykey.cfg"), "listen = tcp://127.0.0.1:1\n= x\n");
        Files.writeString(conf.resolve("io.conduit.gateway.relay-example.cfg.example"), "= not read by FileInstall\n");
        Files.createDirectory(conf.resolve("io.conduit.gateway.echo-dir.cfg"));
        try (ConfigurationFileWatch w = watch()) {
            w.scan();
            assertEquals(2, events.size(), events.toString());
            assertEquals("publish file io.conduit.gateway.echoo~typo io.conduit.gateway.echoo-typo.cfg: ignored: no "
                    + "component reads factory PID 'io.conduit.gateway.echoo' (did you mean "
                    + "io.conduit.gateway.echo-typo.cfg?)", events.get(0));
            assertEquals("publish relay io.conduit.gateway.relay~emptykey io.conduit.gateway.relay-emptykey.cfg: "
                    + "cannot be applied: line 2 ('= x') has an empty key, which Configuration Admin rejects "
                    + "(FileInstall: 'Key [] must not be an empty string'): write it as 'key = value' or delete it; "
                    + "the file's content is not applied until then", events.get(1));

            events.clear();
            w.scan();
            assertEquals(List.of(), events, "an unchanged problem is not published again");

            Path emptyKey = conf.resolve("io.conduit.gateway.relay-emptykey.cfg");
            Files.writeString(emptyKey, "listen = tcp://127.0.0.1:1\nupstream = tcp://127.0.0.1:2\n");
            Files.setLastModifiedTime(emptyKey, FileTime.fromMillis(System.currentTimeMillis() + 5_000));
            Files.move(conf.resolve("io.conduit.gateway.echoo-typo.cfg"), conf.resolve("io.conduit.gateway.echo-typo.cfg"));
            w.scan();
            assertEquals(List.of("withdraw io.conduit.gateway.echoo-typo.cfg",
                    "withdraw io.conduit.gateway.relay-emptykey.cfg"), events, "fixed and renamed");

            events.clear();
            Files.writeString(conf.resolve("io.conduit.transprot.cfg"), "transport = nio\n");
            Files.writeString(conf.resolve("io.conduit.gateway.echo-case.cfg"), "listen = a\nLISTEN = b\n");
            w.scan();
            assertEquals(2, events.size(), events.toString());
            assertTrue(events.get(0).startsWith("publish echo io.conduit.gateway.echo~case "
                    + "io.conduit.gateway.echo-case.cfg: cannot be applied: keys 'listen' (line 1) and 'LISTEN' "
                    + "(line 2) differ only in case"), events.toString());
            assertTrue(events.get(1).startsWith("publish file io.conduit.transprot io.conduit.transprot.cfg: ignored: "
                    + "no component reads PID 'io.conduit.transprot' (did you mean io.conduit.transport.cfg?)"),
                    events.toString());

            events.clear();
            Files.delete(conf.resolve("io.conduit.gateway.echo-case.cfg"));
            known.set(new ConfigurationFileCheck.Known(Set.of("io.conduit.transport"),
                    Set.of("io.conduit.gateway.echo", "io.conduit.gateway.relay"), Set.of("io.conduit.transprot")));
            w.scan();
            assertEquals(List.of("withdraw io.conduit.gateway.echo-case.cfg", "withdraw io.conduit.transprot.cfg"),
                    events, "removed, and read by a component that appeared");
        }
    }

    @Test
    void closingWithdrawsEverythingAndLaterScansDoNothing() throws Exception {
        Files.writeString(conf.resolve("unknown.cfg"), "a = b\n");
        ConfigurationFileWatch w = watch();
        w.scan();
        w.close();
        w.scan();
        assertEquals(2, events.size(), events.toString());
        assertEquals("withdraw unknown.cfg", events.get(1));
    }

    @Test
    void aMissingDirectoryHasNoFiles() {
        try (ConfigurationFileWatch w = new ConfigurationFileWatch(conf.resolve("missing"),
                Pattern.compile(".*\\.(cfg|config)"), known::get, (f, p, k, problem) -> {
                    throw new AssertionError(problem);
                })) {
            w.scan();
        }
    }
}
