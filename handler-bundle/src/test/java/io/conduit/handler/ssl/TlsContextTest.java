package io.conduit.handler.ssl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Building a {@link TlsContext}: every key format a user has (PKCS#8, PKCS#1, SEC1, encrypted or not, PKCS#12) gives
 * a context that completes a handshake, and every mistake gives a {@link TlsConfigException} naming the file and
 * what to do.
 */
@Timeout(60)
class TlsContextTest {

    @TempDir
    static Path dir;
    static TestPki pki;
    static Path ca;
    static TestPki.Issued ecServer;
    static TestPki.Issued rsaServer;
    static Path ecChain;
    static Path rsaChain;

    @BeforeAll
    static void makeCertificates() throws Exception {
        pki = new TestPki(dir, "Context CA");
        ca = pki.caFile();
        ecServer = pki.leaf(TestPki.ec(), true, "localhost");
        rsaServer = pki.leaf(TestPki.rsa(), true, "localhost");
        ecChain = pki.chain("ec.pem", ecServer);
        rsaChain = pki.chain("rsa.pem", rsaServer);
    }

    /** Builds the server context and runs one handshake against it. */
    private static void assertHandshakes(TlsContext.Builder server) throws Exception {
        TlsPair p = new TlsPair(server.build().newServerHandler(),
                TlsContext.forClient().trust(ca).build().newClientHandler("localhost", 443));
        p.shuttle();
        assertTrue(p.clientTls.handshakeFuture().isSuccess(), String.valueOf(p.clientTls.handshakeFuture().cause()));
        assertEquals("CN=localhost", p.clientTls.handshakeResult().peerSubject());
    }

    private static String failure(TlsContext.Builder b, Path expectedFile) {
        TlsConfigException e = assertThrows(TlsConfigException.class, b::build);
        assertEquals(expectedFile, e.file(), e.getMessage());
        return e.getMessage();
    }

    @Test
    void everyKeyFormatWorks() throws Exception {
        char[] pw = TestPki.PASSWORD;
        assertHandshakes(TlsContext.forServer(ecChain, pki.pkcs8("ec-p8.key", ecServer.keys().getPrivate(), null), null));
        assertHandshakes(TlsContext.forServer(ecChain, pki.pkcs8("ec-p8e.key", ecServer.keys().getPrivate(), pw), pw));
        assertHandshakes(TlsContext.forServer(ecChain, pki.traditional("ec-sec1.key", ecServer.keys().getPrivate(), null), null));
        assertHandshakes(TlsContext.forServer(ecChain, pki.traditional("ec-sec1e.key", ecServer.keys().getPrivate(), pw), pw));
        assertHandshakes(TlsContext.forServer(rsaChain, pki.traditional("rsa-p1.key", rsaServer.keys().getPrivate(), null), null));
        assertHandshakes(TlsContext.forServer(rsaChain, pki.traditional("rsa-p1e.key", rsaServer.keys().getPrivate(), pw), pw));
        assertHandshakes(TlsContext.forServer(rsaChain, pki.pkcs8("rsa-p8e.key", rsaServer.keys().getPrivate(), pw), pw));
        assertHandshakes(TlsContext.forServer(pki.pkcs12("ec.p12", ecServer, pw), pw));
        assertTrue(Files.readString(dir.resolve("ec-sec1e.key")).contains("Proc-Type: 4,ENCRYPTED"));
        assertTrue(Files.readString(dir.resolve("rsa-p1.key")).contains("BEGIN RSA PRIVATE KEY"));
        assertTrue(Files.readString(dir.resolve("ec-sec1.key")).contains("BEGIN EC PRIVATE KEY"));
        assertTrue(Files.readString(dir.resolve("ec-p8e.key")).contains("BEGIN ENCRYPTED PRIVATE KEY"));
    }

    @Test
    void aMissingFileIsNamed() {
        Path missing = dir.resolve("nope.pem");
        String m = failure(TlsContext.forServer(missing, dir.resolve("k"), null), missing);
        assertEquals("the certificate chain file " + missing + " does not exist; check the path", m);
        Path key = dir.resolve("nokey.pem");
        m = failure(TlsContext.forServer(ecChain, key, null), key);
        assertEquals("the private key file " + key + " does not exist; check the path", m);
        m = failure(TlsContext.forClient().trust(missing), missing);
        assertEquals("the CA certificates (trust) file " + missing + " does not exist; check the path", m);
    }

    @Test
    void aKeyThatDoesNotMatchTheCertificateIsRefused() throws Exception {
        Path otherEc = pki.pkcs8("other-ec.key", TestPki.ec().getPrivate(), null);
        String m = failure(TlsContext.forServer(ecChain, otherEc, null), otherEc);
        assertTrue(m.startsWith("the private key " + otherEc + " (EC) does not match the certificate 'CN=localhost' in "
                + ecChain + " (EC); give the key the certificate was issued for"), m);
        Path rsaKey = pki.pkcs8("rsa-for-ec.key", rsaServer.keys().getPrivate(), null);
        m = failure(TlsContext.forServer(ecChain, rsaKey, null), rsaKey);
        assertTrue(m.contains("(RSA) does not match the certificate 'CN=localhost'") && m.contains("(EC)"), m);
        Path otherRsa = pki.traditional("other-rsa.key", TestPki.rsa().getPrivate(), null);
        m = failure(TlsContext.forServer(rsaChain, otherRsa, null), otherRsa);
        assertTrue(m.contains("does not match the certificate"), m);
    }

    @Test
    void aWrongOrMissingPasswordIsSaid() throws Exception {
        char[] wrong = "wrong".toCharArray();
        for (Path key : new Path[] {pki.pkcs8("pw-p8.key", ecServer.keys().getPrivate(), TestPki.PASSWORD),
                pki.traditional("pw-sec1.key", ecServer.keys().getPrivate(), TestPki.PASSWORD)}) {
            String m = failure(TlsContext.forServer(ecChain, key, wrong), key);
            assertTrue(m.startsWith("cannot decrypt the private key " + key + ": wrong password")
                    || m.contains("a wrong password can cause this"), m);
            m = failure(TlsContext.forServer(ecChain, key, null), key);
            assertEquals("the private key " + key + " is encrypted: give the password it was encrypted with", m);
        }
        Path p12 = pki.pkcs12("pw.p12", ecServer, TestPki.PASSWORD);
        String m = failure(TlsContext.forServer(p12, wrong), p12);
        assertTrue(m.startsWith("cannot open the PKCS#12 keystore " + p12 + ": wrong password")
                || m.contains("a wrong password can cause this"), m);
    }

    @Test
    void anExpiredOrNotYetValidCertificateIsRefused() throws Exception {
        KeyPair keys = TestPki.ec();
        Path key = pki.pkcs8("dated.key", keys.getPrivate(), null);
        Instant now = Instant.now();
        Path expired = pki.chain("expired.pem", pki.leaf(keys, true, now.minus(Duration.ofDays(10)),
                now.minus(Duration.ofDays(1)), "old.example"));
        String m = failure(TlsContext.forServer(expired, key, null), expired);
        assertTrue(m.startsWith("the certificate 'CN=old.example' in " + expired + " expired on ") && m.endsWith("; renew it"), m);
        Path future = pki.chain("future.pem", pki.leaf(keys, true, now.plus(Duration.ofDays(1)),
                now.plus(Duration.ofDays(10)), "new.example"));
        m = failure(TlsContext.forServer(future, key, null), future);
        assertTrue(m.startsWith("the certificate 'CN=new.example' in " + future + " is not valid before ")
                && m.endsWith("; check this machine's clock or use a certificate that is valid now"), m);
    }

    @Test
    void otherMistakesAreExplained() throws Exception {
        Path notPem = Files.writeString(dir.resolve("not.pem"), "hello\n");
        String m = failure(TlsContext.forServer(notPem, notPem, null), notPem);
        assertTrue(m.contains("holds no certificate"), m);
        Path key = pki.pkcs8("k.key", ecServer.keys().getPrivate(), null);
        m = failure(TlsContext.forServer(ecChain, key, null).clientAuth(ClientAuth.REQUIRED), null);
        assertTrue(m.contains("needs the CA certificates that client certificates chain to: set trust(caFile)"), m);
        m = failure(TlsContext.forServer(ecChain, key, null).protocols("TLSv1.9"), null);
        assertTrue(m.startsWith("protocol [TLSv1.9] not supported by this JVM; use some of ["), m);
        m = failure(TlsContext.forClient().cipherSuites("TLS_NOPE"), null);
        assertTrue(m.startsWith("cipher suite [TLS_NOPE] not supported by this JVM"), m);
        assertThrows(IllegalArgumentException.class, () -> TlsContext.forClient().build().newClientHandler(null, 443));
    }
}
