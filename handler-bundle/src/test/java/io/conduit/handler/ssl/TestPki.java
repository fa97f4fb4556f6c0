package io.conduit.handler.ssl;

import java.io.IOException;
import java.io.OutputStream;
import java.io.Writer;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPrivateKey;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;

import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.openssl.jcajce.JcaMiscPEMGenerator;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.openssl.jcajce.JceOpenSSLPKCS8EncryptorBuilder;
import org.bouncycastle.openssl.jcajce.JcePEMEncryptorBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Certificates and keys for the TLS tests, made with BouncyCastle (so validity periods in the past or future are
 * possible) and written as the files a user has: PEM chains, keys in PKCS#8, PKCS#1 and SEC1, encrypted or not, and
 * PKCS#12 keystores.
 */
final class TestPki {

    static final char[] PASSWORD = "s3cret".toCharArray();
    private static final Provider BC = new BouncyCastleProvider();
    private static final AtomicLong SERIAL = new AtomicLong(System.currentTimeMillis());

    /** A key pair and its certificate. */
    record Issued(KeyPair keys, X509Certificate cert) {
    }

    final Path dir;
    final Issued ca;

    TestPki(Path dir, String caName) throws Exception {
        this.dir = dir;
        KeyPair keys = ec();
        Instant now = Instant.now();
        ca = new Issued(keys, sign(new JcaX509v3CertificateBuilder(new X500Name("CN=" + caName), serial(),
                Date.from(now.minus(Duration.ofDays(1))), Date.from(now.plus(Duration.ofDays(30))),
                new X500Name("CN=" + caName), keys.getPublic())
                .addExtension(Extension.basicConstraints, true, new BasicConstraints(true))
                .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign)),
                keys.getPrivate()));
    }

    static KeyPair ec() throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"));
        return g.generateKeyPair();
    }

    static KeyPair rsa() throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
        g.initialize(2048);
        return g.generateKeyPair();
    }

    /** A server or client certificate valid from a day ago for 30 days, naming {@code dnsNames} (the first as CN). */
    Issued leaf(KeyPair keys, boolean server, String... dnsNames) throws Exception {
        Instant now = Instant.now();
        return leaf(keys, server, now.minus(Duration.ofDays(1)), now.plus(Duration.ofDays(30)), dnsNames);
    }

    Issued leaf(KeyPair keys, boolean server, Instant notBefore, Instant notAfter, String... dnsNames) throws Exception {
        X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(ca.cert(), serial(), Date.from(notBefore),
                Date.from(notAfter), new X500Name("CN=" + dnsNames[0]), keys.getPublic())
                .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment))
                .addExtension(Extension.extendedKeyUsage, false,
                        new ExtendedKeyUsage(server ? KeyPurposeId.id_kp_serverAuth : KeyPurposeId.id_kp_clientAuth));
        if (server) {
            GeneralName[] names = new GeneralName[dnsNames.length + 1];
            for (int i = 0; i < dnsNames.length; i++) {
                names[i] = new GeneralName(GeneralName.dNSName, dnsNames[i]);
            }
            names[dnsNames.length] = new GeneralName(GeneralName.iPAddress, "127.0.0.1");
            b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(names));
        }
        return new Issued(keys, sign(b, ca.keys().getPrivate()));
    }

    private static X509Certificate sign(X509v3CertificateBuilder b, PrivateKey issuerKey) throws Exception {
        return new JcaX509CertificateConverter().getCertificate(b.build(new JcaContentSignerBuilder("SHA256withECDSA")
                .build(issuerKey)));
    }

    private static BigInteger serial() {
        return BigInteger.valueOf(SERIAL.incrementAndGet());
    }

    /** Writes the certificate, then the CA's (a chain), as PEM. */
    Path chain(String name, Issued leaf) throws IOException {
        return pem(name, leaf.cert(), ca.cert());
    }

    Path caFile() throws IOException {
        return pem("ca.pem", ca.cert());
    }

    Path pem(String name, Object... objects) throws IOException {
        Path p = dir.resolve(name);
        try (Writer w = Files.newBufferedWriter(p); JcaPEMWriter pem = new JcaPEMWriter(w)) {
            for (Object o : objects) {
                pem.writeObject(o);
            }
        }
        return p;
    }

    /** PKCS#8 {@code PRIVATE KEY}, or {@code ENCRYPTED PRIVATE KEY} (PBES2, AES-256-CBC) with a password. */
    Path pkcs8(String name, PrivateKey key, char[] password) throws Exception {
        return pem(name, new JcaPKCS8Generator(key, password == null ? null
                : new JceOpenSSLPKCS8EncryptorBuilder(JcaPKCS8Generator.AES_256_CBC).setProvider(BC)
                        .setPassword(password).build()));
    }

    /** The traditional OpenSSL form: PKCS#1 for RSA, SEC1 for EC; encrypted (AES-128-CBC, DEK-Info) with a password. */
    Path traditional(String name, PrivateKey key, char[] password) throws Exception {
        Object k = key;
        if (key instanceof ECPrivateKey ec) {
            // SEC1 as OpenSSL writes it: with the curve inside (the JDK's PKCS#8 encoding has it only outside)
            PrivateKeyInfo info = PrivateKeyInfo.getInstance(key.getEncoded());
            k = new PrivateKeyInfo(info.getPrivateKeyAlgorithm(), new org.bouncycastle.asn1.sec.ECPrivateKey(256, ec.getS(),
                    info.getPrivateKeyAlgorithm().getParameters()));
        }
        return pem(name, password == null ? new JcaMiscPEMGenerator(k)
                : new JcaMiscPEMGenerator(k, new JcePEMEncryptorBuilder("AES-128-CBC").setProvider(BC).build(password)));
    }

    Path pkcs12(String name, Issued leaf, char[] password) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        ks.setKeyEntry("key", leaf.keys().getPrivate(), password, new X509Certificate[] {leaf.cert(), ca.cert()});
        Path p = dir.resolve(name);
        try (OutputStream out = Files.newOutputStream(p)) {
            ks.store(out, password);
        }
        return p;
    }
}
