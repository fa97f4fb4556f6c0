package io.conduit.testsuite;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Certificates for the TLS tests, made by the {@code openssl} program as an administrator would: an EC P-256 CA, a
 * server certificate for {@code localhost} and {@code 127.0.0.1}, and a client certificate {@code CN=device-1}; keys
 * are PKCS#8 PEM (OpenSSL 3's default). Made once per directory; a missing {@code openssl} skips (or, under
 * {@value RequiredTools#REQUIRE_ENV}, fails) through {@link RequiredTools}.
 *
 * @param dir        where the files are
 * @param ca         the CA certificate (PEM)
 * @param serverCert the server's chain (its certificate, then the CA's)
 * @param serverKey  the server's key
 * @param clientCert the client's certificate
 * @param clientKey  the client's key
 */
public record TlsCertificates(Path dir, Path ca, Path serverCert, Path serverKey, Path clientCert, Path clientKey) {

    /** Makes the files in a new temporary directory. */
    public static TlsCertificates make() {
        Path openssl = RequiredTools.require("openssl", "apt-get install -y openssl");
        try {
            Path dir = Files.createTempDirectory("conduit-tls");
            dir.toFile().deleteOnExit();
            String o = openssl.toString();
            String ec = "ec";
            run(dir, o, "req", "-x509", "-newkey", ec, "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                    "-keyout", "ca.key", "-out", "ca.pem", "-days", "30", "-subj", "/CN=Conduit Test CA",
                    "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign");
            leaf(dir, o, "server", "/CN=localhost",
                    "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\nkeyUsage=digitalSignature\n");
            leaf(dir, o, "client", "/CN=device-1", "extendedKeyUsage=clientAuth\nkeyUsage=digitalSignature\n");
            Path chain = dir.resolve("server-chain.pem");
            Files.writeString(chain, Files.readString(dir.resolve("server.pem")) + Files.readString(dir.resolve("ca.pem")));
            return new TlsCertificates(dir, dir.resolve("ca.pem"), chain, dir.resolve("server.key"),
                    dir.resolve("client.pem"), dir.resolve("client.key"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void leaf(Path dir, String openssl, String name, String subject, String extensions) throws IOException {
        run(dir, openssl, "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-keyout", name + ".key", "-out", name + ".csr", "-subj", subject);
        Files.writeString(dir.resolve(name + ".ext"), extensions);
        run(dir, openssl, "x509", "-req", "-in", name + ".csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                "-set_serial", String.valueOf(System.nanoTime() & Long.MAX_VALUE), "-days", "30",
                "-extfile", name + ".ext", "-out", name + ".pem");
    }

    /** Runs a program in {@code dir}, failing with its output when it does not exit 0 within 60 s. */
    static String run(Path dir, String... command) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(command));
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        try {
            p.getOutputStream().close();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", cmd) + " failed: " + new String(out, StandardCharsets.UTF_8));
            }
            return new String(out, StandardCharsets.UTF_8);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            throw new IOException("interrupted: " + String.join(" ", cmd), e);
        }
    }
}
