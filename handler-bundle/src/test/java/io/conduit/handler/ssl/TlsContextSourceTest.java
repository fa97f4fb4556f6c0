package io.conduit.handler.ssl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import io.conduit.handler.LogCapture;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TlsContextSourceTest {

    private static final Duration INTERVAL = Duration.ofSeconds(5);
    private static final String LOGGER = TlsContextSource.class.getName();

    @TempDir
    static Path dir;
    static TestPki pki;
    static Path firstChain;
    static Path firstKey;
    static Path secondChain;
    static Path secondKey;

    @BeforeAll
    static void makeCertificates() throws Exception {
        pki = new TestPki(dir, "Reload CA");
        TestPki.Issued first = pki.leaf(TestPki.ec(), true, "localhost", "first.example");
        firstChain = pki.chain("first.pem", first);
        firstKey = pki.pkcs8("first.key", first.keys().getPrivate(), null);
        TestPki.Issued second = pki.leaf(TestPki.ec(), true, "localhost", "second.example");
        secondChain = pki.chain("second.pem", second);
        secondKey = pki.pkcs8("second.key", second.keys().getPrivate(), null);
    }

    /** The files a source follows, in a directory of their own, starting with the first certificate. */
    private static Path[] liveFiles(String name) throws Exception {
        Path live = Files.createDirectories(dir.resolve(name));
        Path chain = live.resolve("chain.pem");
        Path key = live.resolve("key.pem");
        Files.copy(firstChain, chain);
        Files.copy(firstKey, key);
        return new Path[] {chain, key};
    }

    /** Puts {@code from} in place of {@code to} as a renewal tool does: written aside, then renamed. */
    private static void replace(Path from, Path to) throws Exception {
        Path aside = to.resolveSibling(to.getFileName() + ".new");
        Files.copy(from, aside, StandardCopyOption.REPLACE_EXISTING);
        Files.move(aside, to, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private static String sans(TlsContext c) throws Exception {
        return c.certificateChain().get(0).getSubjectAlternativeNames().toString();
    }

    @Test
    void newHandshakesUseTheRenewedCertificateAfterTheNextCheck() throws Exception {
        Path[] files = liveFiles("renewed");
        AtomicLong clock = new AtomicLong();
        try (LogCapture log = new LogCapture(LOGGER)) {
            TlsContextSource source = TlsContextSource.of(TlsContext.forServer(files[0], files[1], null), INTERVAL,
                    Duration.ofDays(1), clock::get, System.getLogger(LOGGER));
            TlsContext first = source.current();
            assertTrue(sans(first).contains("first.example"));
            replace(secondChain, files[0]);
            replace(secondKey, files[1]);
            clock.addAndGet(INTERVAL.toNanos() - 1);
            assertSame(first, source.current(), "not looked at before the interval is over");
            clock.addAndGet(1);
            TlsContext second = source.current();
            assertTrue(sans(second).contains("second.example"), sans(second));
            assertEquals(1, log.lines().size(), log.lines().toString());
            assertTrue(log.lines().get(0).startsWith("TLS files changed, new handshakes use them"), log.lines().get(0));

            TlsPair p = new TlsPair(source.newServerHandler(), TlsContext.forClient().trust(pki.caFile()).build()
                    .newClientHandler("localhost", 443));
            p.shuttle();
            assertTrue(p.clientTls.handshakeResult().peerCertificates().get(0).getSubjectAlternativeNames().toString()
                    .contains("second.example"), "a new handshake shows the new certificate");
            p.clientChannel.close();
            p.shuttle();
            p.serverChannel.close();
            p.clientChannel.releaseOutbound();
            p.serverChannel.releaseOutbound();
        }
    }

    @Test
    void aBrokenNewFileKeepsTheContextInUseAndSaysSoOnce() throws Exception {
        Path[] files = liveFiles("broken");
        AtomicLong clock = new AtomicLong();
        try (LogCapture log = new LogCapture(LOGGER)) {
            TlsContextSource source = TlsContextSource.of(TlsContext.forServer(files[0], files[1], null), INTERVAL,
                    Duration.ofDays(1), clock::get, System.getLogger(LOGGER));
            TlsContext first = source.current();
            replace(secondChain, files[0]); // the new certificate without its key yet
            clock.addAndGet(INTERVAL.toNanos());
            assertSame(first, source.current());
            clock.addAndGet(INTERVAL.toNanos());
            assertSame(first, source.current(), "the same broken files are not tried again");
            assertEquals(1, log.lines().size(), log.lines().toString());
            String line = log.lines().get(0);
            assertTrue(line.contains(files[1].toString()) && line.contains("does not match the certificate")
                    && line.endsWith("new handshakes keep the certificate loaded before (certificate 'CN=localhost',"
                    + " expires " + first.certificateChain().get(0).getNotAfter().toInstant() + ")"), line);
            replace(secondKey, files[1]);
            clock.addAndGet(INTERVAL.toNanos());
            assertTrue(sans(source.current()).contains("second.example"), "reloaded once the key is there too");
        }
    }

    @Test
    void aCertificateExpiringWithinTheWarningPeriodIsWarnedAboutOnce() throws Exception {
        TestPki.Issued soon = pki.leaf(TestPki.ec(), true, Instant.now().minus(Duration.ofDays(80)),
                Instant.now().plus(Duration.ofDays(10)).plus(Duration.ofHours(1)), "soon.example");
        Path chain = pki.chain("soon.pem", soon);
        Path key = pki.pkcs8("soon.key", soon.keys().getPrivate(), null);
        AtomicLong clock = new AtomicLong();
        try (LogCapture log = new LogCapture(LOGGER)) {
            TlsContextSource source = TlsContextSource.of(TlsContext.forServer(chain, key, null), INTERVAL,
                    Duration.ofDays(30), clock::get, System.getLogger(LOGGER));
            clock.addAndGet(INTERVAL.toNanos());
            source.current();
            List<String> lines = log.lines();
            assertEquals(1, lines.size(), lines.toString());
            assertTrue(lines.get(0).startsWith("the certificate 'CN=soon.example' in " + chain + " expires on ")
                    && lines.get(0).contains("(in 10 days); renew it"), lines.get(0));
        }
        try (LogCapture log = new LogCapture(LOGGER)) {
            TlsContextSource.of(TlsContext.forServer(chain, key, null), INTERVAL, Duration.ofDays(5), clock::get,
                    System.getLogger(LOGGER));
            assertEquals(List.of(), log.lines(), "10 days left, warned 5 days before: nothing yet");
        }
    }

    @Test
    void aCertificateIsWarnedAboutOnceHoweverManySourcesLoadIt() throws Exception {
        Instant notBefore = Instant.now().minus(Duration.ofDays(80));
        TestPki.Issued soon = pki.leaf(TestPki.ec(), true, notBefore,
                Instant.now().plus(Duration.ofDays(12)).plus(Duration.ofHours(1)), "once.example");
        Path chain = pki.chain("once.pem", soon);
        Path key = pki.pkcs8("once.key", soon.keys().getPrivate(), null);
        Path copies = Files.createDirectories(dir.resolve("once-copies"));
        Path chainCopy = Files.copy(chain, copies.resolve("chain.pem"));
        Path keyCopy = Files.copy(key, copies.resolve("key.pem"));
        AtomicLong clock = new AtomicLong();
        try (LogCapture log = new LogCapture(LOGGER)) {
            List<TlsContextSource> sources = new java.util.ArrayList<>();
            for (int i = 0; i < 3; i++) { // one configuration applied three times
                sources.add(TlsContextSource.of(TlsContext.forServer(chain, key, null), INTERVAL, Duration.ofDays(30),
                        clock::get, System.getLogger(LOGGER)));
            }
            // another configuration with copies of the same certificate
            sources.add(TlsContextSource.of(TlsContext.forServer(chainCopy, keyCopy, null), INTERVAL,
                    Duration.ofDays(30), clock::get, System.getLogger(LOGGER)));
            clock.addAndGet(INTERVAL.toNanos());
            sources.forEach(TlsContextSource::current);
            List<String> lines = log.lines();
            assertEquals(1, lines.size(), lines.toString());
            assertTrue(lines.get(0).startsWith("the certificate 'CN=once.example' in " + chain + " expires on "),
                    lines.get(0));
        }
        TestPki.Issued renewed = pki.leaf(TestPki.ec(), true, notBefore,
                Instant.now().plus(Duration.ofDays(20)).plus(Duration.ofHours(1)), "once.example");
        Path renewedChain = pki.chain("once-renewed.pem", renewed);
        Path renewedKey = pki.pkcs8("once-renewed.key", renewed.keys().getPrivate(), null);
        try (LogCapture log = new LogCapture(LOGGER)) {
            TlsContextSource.of(TlsContext.forServer(renewedChain, renewedKey, null), INTERVAL, Duration.ofDays(30),
                    clock::get, System.getLogger(LOGGER));
            List<String> lines = log.lines();
            assertEquals(1, lines.size(), "a certificate with the same subject but a new end is another one: " + lines);
            assertTrue(lines.get(0).contains("(in 20 days)"), lines.get(0));
        }
    }
}
