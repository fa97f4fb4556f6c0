package io.conduit.handler.ssl;

import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.X509Certificate;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.interfaces.RSAPublicKey;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Date;
import java.util.List;

import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.openssl.jcajce.JceOpenSSLPKCS8DecryptorProviderBuilder;
import org.bouncycastle.openssl.jcajce.JcePEMDecryptorProviderBuilder;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;

/**
 * Reads certificates and private keys from PEM files with BouncyCastle, and PKCS#12 keystores with the JDK, and checks
 * them: every failure is a {@link TlsConfigException} naming the file and what to do. Keys are converted with the
 * JDK's providers (so {@code SSLEngine} signs with them as with its own); BouncyCastle's provider is used only to
 * decrypt encrypted keys, as an instance that is never registered with {@link java.security.Security}.
 */
final class PemFiles {

    private PemFiles() {
    }

    /** The BouncyCastle provider instance for decryption, made on first use. */
    private static final class Bc {
        static final Provider PROVIDER = new BouncyCastleProvider();
    }

    /** Fails with a clear message when BouncyCastle is not there (an OSGi framework without its bundles). */
    static void requireBouncyCastle(Path file) throws TlsConfigException {
        try {
            Class.forName("org.bouncycastle.openssl.PEMParser", false, PemFiles.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new TlsConfigException(file, "cannot read " + file + ": reading PEM files needs BouncyCastle; install"
                    + " the bundles (or jars) bcprov-jdk18on, bcutil-jdk18on and bcpkix-jdk18on beside io.conduit.handler",
                    e);
        }
    }

    /**
     * @param file a PEM file with one or more {@code CERTIFICATE} blocks
     * @param what what the file is for, e.g. {@code certificate chain}, for messages
     * @return the certificates in file order (a chain: the end-entity certificate first)
     */
    static List<X509Certificate> certificates(Path file, String what) throws TlsConfigException {
        requireBouncyCastle(file);
        List<X509Certificate> certs = new ArrayList<>();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.US_ASCII); PEMParser pem = new PEMParser(r)) {
            JcaX509CertificateConverter converter = new JcaX509CertificateConverter();
            for (Object o = pem.readObject(); o != null; o = pem.readObject()) {
                if (o instanceof X509CertificateHolder holder) {
                    certs.add(converter.getCertificate(holder));
                }
            }
        } catch (NoSuchFileException e) {
            throw missing(file, what, e);
        } catch (IOException | CertificateException | RuntimeException e) {
            throw new TlsConfigException(file, "cannot read the " + what + " " + file + ": " + e.getMessage()
                    + "; it must be PEM (-----BEGIN CERTIFICATE-----)", e);
        }
        if (certs.isEmpty()) {
            throw new TlsConfigException(file, "the " + what + " " + file + " holds no certificate; it must be PEM"
                    + " with at least one -----BEGIN CERTIFICATE----- block", null);
        }
        return certs;
    }

    /**
     * Reads the first private key of a PEM file: PKCS#8 ({@code PRIVATE KEY}, {@code ENCRYPTED PRIVATE KEY}), PKCS#1
     * ({@code RSA PRIVATE KEY}) or SEC1 ({@code EC PRIVATE KEY}), the latter two also encrypted the OpenSSL way
     * ({@code Proc-Type: 4,ENCRYPTED}).
     *
     * @param password the key's password, or null when it is not encrypted
     */
    static PrivateKey privateKey(Path file, char[] password) throws TlsConfigException {
        requireBouncyCastle(file);
        Object key;
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.US_ASCII); PEMParser pem = new PEMParser(r)) {
            do {
                key = pem.readObject();
            } while (key != null && !(key instanceof PEMKeyPair || key instanceof PEMEncryptedKeyPair
                    || key instanceof PrivateKeyInfo || key instanceof PKCS8EncryptedPrivateKeyInfo));
        } catch (NoSuchFileException e) {
            throw missing(file, "private key", e);
        } catch (IOException | RuntimeException e) {
            throw new TlsConfigException(file, "cannot read the private key " + file + ": " + e.getMessage()
                    + "; it must be PEM (PKCS#8, PKCS#1 or SEC1)", e);
        }
        if (key == null) {
            throw new TlsConfigException(file, "the private key file " + file + " holds no private key; it must be PEM"
                    + " with a PRIVATE KEY, ENCRYPTED PRIVATE KEY, RSA PRIVATE KEY or EC PRIVATE KEY block", null);
        }
        boolean encrypted = key instanceof PEMEncryptedKeyPair || key instanceof PKCS8EncryptedPrivateKeyInfo;
        if (encrypted && (password == null || password.length == 0)) {
            throw new TlsConfigException(file, "the private key " + file + " is encrypted: give the password it was"
                    + " encrypted with", null);
        }
        JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
        PrivateKeyInfo info;
        try {
            if (key instanceof PEMEncryptedKeyPair e) {
                info = e.decryptKeyPair(new JcePEMDecryptorProviderBuilder().setProvider(Bc.PROVIDER).build(password))
                        .getPrivateKeyInfo();
            } else if (key instanceof PKCS8EncryptedPrivateKeyInfo e) {
                info = e.decryptPrivateKeyInfo(new JceOpenSSLPKCS8DecryptorProviderBuilder()
                        .setProvider(Bc.PROVIDER).build(password));
            } else if (key instanceof PEMKeyPair kp) {
                info = kp.getPrivateKeyInfo();
            } else {
                info = (PrivateKeyInfo) key;
            }
        } catch (Exception e) {
            throw new TlsConfigException(file, "cannot decrypt the private key " + file + ": wrong password (or a"
                    + " damaged file); give the password the key was encrypted with", e);
        }
        try {
            return converter.getPrivateKey(info);
        } catch (IOException | RuntimeException e) {
            throw new TlsConfigException(file, "cannot use the private key " + file + ": " + e.getMessage()
                    + (encrypted ? " (a wrong password can cause this; give the password the key was encrypted with)" : ""),
                    e);
        }
    }

    /** The key and chain of a PKCS#12 keystore's first key entry. */
    record KeyAndChain(PrivateKey key, List<X509Certificate> chain) {
    }

    static KeyAndChain pkcs12(Path file, char[] password) throws TlsConfigException {
        KeyStore ks;
        char[] pw = password == null ? new char[0] : password;
        try (InputStream in = Files.newInputStream(file)) {
            ks = KeyStore.getInstance("PKCS12");
            ks.load(in, pw);
        } catch (NoSuchFileException e) {
            throw missing(file, "PKCS#12 keystore", e);
        } catch (IOException e) {
            if (e.getCause() instanceof java.security.UnrecoverableKeyException) {
                throw new TlsConfigException(file, "cannot open the PKCS#12 keystore " + file + ": wrong password;"
                        + " give the password it was made with", e);
            }
            throw new TlsConfigException(file, "cannot read the PKCS#12 keystore " + file + ": " + e.getMessage()
                    + " (a wrong password can cause this)", e);
        } catch (GeneralSecurityException e) {
            throw new TlsConfigException(file, "cannot read the PKCS#12 keystore " + file + ": " + e.getMessage(), e);
        }
        try {
            for (String alias : Collections.list(ks.aliases())) {
                if (ks.isKeyEntry(alias)) {
                    PrivateKey key = (PrivateKey) ks.getKey(alias, pw);
                    List<X509Certificate> chain = new ArrayList<>();
                    Certificate[] certs = ks.getCertificateChain(alias);
                    if (certs != null) {
                        for (Certificate c : certs) {
                            chain.add((X509Certificate) c);
                        }
                    }
                    if (chain.isEmpty()) {
                        throw new TlsConfigException(file, "the key entry '" + alias + "' of the PKCS#12 keystore " + file
                                + " has no certificate; add its certificate chain", null);
                    }
                    return new KeyAndChain(key, chain);
                }
            }
        } catch (GeneralSecurityException e) {
            throw new TlsConfigException(file, "cannot read the key of the PKCS#12 keystore " + file + ": " + e.getMessage()
                    + " (a wrong password can cause this)", e);
        }
        throw new TlsConfigException(file, "the PKCS#12 keystore " + file + " holds no private key entry; it needs the"
                + " key and its certificate chain", null);
    }

    /** Fails when a certificate of {@code chain} is expired or not yet valid at {@code now}. */
    static void checkValidity(List<X509Certificate> chain, Path file, Date now) throws TlsConfigException {
        for (X509Certificate c : chain) {
            try {
                c.checkValidity(now);
            } catch (CertificateExpiredException e) {
                throw new TlsConfigException(file, "the certificate '" + c.getSubjectX500Principal().getName() + "' in "
                        + file + " expired on " + c.getNotAfter().toInstant() + "; renew it", e);
            } catch (CertificateNotYetValidException e) {
                throw new TlsConfigException(file, "the certificate '" + c.getSubjectX500Principal().getName() + "' in "
                        + file + " is not valid before " + c.getNotBefore().toInstant() + "; check this machine's clock"
                        + " or use a certificate that is valid now", e);
            }
        }
    }

    /** Fails unless {@code key} is the private key of {@code cert}'s public key. */
    static void checkKeyMatches(PrivateKey key, X509Certificate cert, Path keyFile, Path certFile)
            throws TlsConfigException {
        PublicKey pub = cert.getPublicKey();
        boolean matches;
        if (key instanceof RSAPrivateCrtKey rsa && pub instanceof RSAPublicKey rsaPub) {
            matches = rsa.getModulus().equals(rsaPub.getModulus())
                    && rsa.getPublicExponent().equals(rsaPub.getPublicExponent());
        } else if (!sameFamily(key.getAlgorithm(), pub.getAlgorithm())) {
            matches = false;
        } else {
            matches = signsForCertificate(key, pub);
        }
        if (!matches) {
            throw new TlsConfigException(keyFile, "the private key " + keyFile + " (" + key.getAlgorithm() + ") does not"
                    + " match the certificate '" + cert.getSubjectX500Principal().getName() + "' in " + certFile + " ("
                    + pub.getAlgorithm() + "); give the key the certificate was issued for", null);
        }
    }

    private static boolean sameFamily(String keyAlgorithm, String publicAlgorithm) {
        return keyAlgorithm.equals(publicAlgorithm) || edwards(keyAlgorithm) && edwards(publicAlgorithm);
    }

    private static boolean edwards(String algorithm) {
        return algorithm.equals("EdDSA") || algorithm.equals("Ed25519") || algorithm.equals("Ed448");
    }

    /** Signs random bytes with {@code key} and verifies them with {@code pub}; true when no signature fits them. */
    private static boolean signsForCertificate(PrivateKey key, PublicKey pub) {
        String algorithm = switch (key.getAlgorithm()) {
            case "EC" -> "SHA256withECDSA";
            case "RSA" -> "SHA256withRSA";
            case "DSA" -> "SHA256withDSA";
            case "EdDSA", "Ed25519", "Ed448" -> key.getAlgorithm();
            default -> null; // e.g. RSASSA-PSS: its parameters come from the certificate; the handshake checks it
        };
        if (algorithm == null) {
            return true;
        }
        byte[] data = new BigInteger(130, new java.security.SecureRandom()).toByteArray();
        try {
            Signature s = Signature.getInstance(algorithm);
            s.initSign(key);
            s.update(data);
            byte[] sig = s.sign();
            Signature v = Signature.getInstance(algorithm);
            v.initVerify(pub);
            v.update(data);
            return v.verify(sig);
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    private static TlsConfigException missing(Path file, String what, Exception e) {
        return new TlsConfigException(file, "the " + what + " file " + file + " does not exist; check the path", e);
    }
}
