package io.conduit.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.options;

import java.math.BigInteger;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Date;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import javax.inject.Inject;

import io.conduit.buffer.Buffer;
import io.conduit.bootstrap.Bootstrap;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.ChannelInitializer;
import io.conduit.bootstrap.ServerBootstrap;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.handler.ssl.TlsContext;
import io.conduit.handler.ssl.TlsHandler;
import io.conduit.transport.ChannelType;
import io.conduit.transport.Transport;
import io.conduit.transport.Transports;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcePEMEncryptorBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.wiring.BundleWire;
import org.osgi.framework.wiring.BundleWiring;

/**
 * The handler bundle's TLS package in a framework (Felix and Equinox) with the BouncyCastle bundles beside it: its
 * optional {@code org.bouncycastle.*} imports wire to them, and a TLS echo over loopback works with a context read
 * from PEM files (an encrypted SEC1 key, written with BouncyCastle in the framework as {@code openssl ec -aes128}
 * writes it, so no tool on the machine is needed and the test never skips).
 */
@RunWith(PaxExam.class)
public class TlsBundleTest {

    @Inject
    private BundleContext context;

    @Configuration
    public Option[] config() {
        return options(ItestOptions.base(), ItestOptions.ours("conduit.itest.nioJar"),
                ItestOptions.thirdParty("bcprov-jdk18on"), ItestOptions.thirdParty("bcutil-jdk18on"),
                ItestOptions.thirdParty("bcpkix-jdk18on"), ItestOptions.ours("conduit.itest.handlerJar"));
    }

    @Before
    public void allBundlesStarted() {
        Osgi.assertAllBundlesActive(context);
    }

    @Test
    public void theOptionalBouncyCastleImportsWireToItsBundles() {
        Bundle handler = Osgi.bundle(context, "io.conduit.handler");
        String pemProvider = null;
        for (BundleWire wire : handler.adapt(BundleWiring.class).getRequiredWires("osgi.wiring.package")) {
            if ("org.bouncycastle.openssl".equals(wire.getCapability().getAttributes().get("osgi.wiring.package"))) {
                pemProvider = wire.getProvider().getBundle().getSymbolicName();
            }
        }
        assertEquals("bcpkix", pemProvider);
    }

    @Test
    public void aTlsEchoOverLoopbackWithAKeyFromPem() throws Exception {
        Path dir = Files.createTempDirectory("conduit-itest-tls");
        writeSelfSignedEcKeyAndCertificate(dir, "itest".toCharArray());
        assertTrue(Files.readString(dir.resolve("sec1.key")).contains("BEGIN EC PRIVATE KEY"));
        assertTrue(Files.readString(dir.resolve("sec1.key")).contains("Proc-Type: 4,ENCRYPTED"));
        TlsContext server = TlsContext.forServer(dir.resolve("cert.pem"), dir.resolve("sec1.key"), "itest".toCharArray())
                .build();
        TlsContext client = TlsContext.forClient().trust(dir.resolve("cert.pem")).build();

        Transport transport = Transports.selected();
        try (EventLoopGroup group = transport.newEventLoopGroup(1)) {
            Channel listener = new ServerBootstrap().transport(transport).group(group).channelType(ChannelType.TCP)
                    .childHandler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            ch.pipeline().addLast(server.newServerHandler(), new ChannelHandler() {
                                @Override
                                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                    ctx.writeAndFlush(msg);
                                }
                            });
                        }
                    })
                    .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).get(10, TimeUnit.SECONDS);
            int port = ((InetSocketAddress) listener.localAddress()).getPort();
            CompletableFuture<String> echoed = new CompletableFuture<>();
            Channel ch = new Bootstrap().transport(transport).group(group).channelType(ChannelType.TCP)
                    .handler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel c) {
                            c.pipeline().addLast(client.newClientHandler("localhost", port), new ChannelHandler() {
                                @Override
                                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                    try (Buffer b = (Buffer) msg) {
                                        echoed.complete(new String(b.toByteArray(), StandardCharsets.US_ASCII));
                                    }
                                }
                            });
                        }
                    })
                    .connect(listener.localAddress()).get(10, TimeUnit.SECONDS);
            ch.writeAndFlush(ch.alloc().buffer(5).writeBytes("hello".getBytes(StandardCharsets.US_ASCII)))
                    .get(10, TimeUnit.SECONDS);
            assertEquals("hello", echoed.get(10, TimeUnit.SECONDS));
            TlsHandler tls = ch.pipeline().get(TlsHandler.class);
            assertEquals("CN=localhost", tls.handshakeResult().peerSubject());
            ch.close().get(10, TimeUnit.SECONDS);
            listener.close().get(10, TimeUnit.SECONDS);
        }
    }

    /**
     * Writes {@code cert.pem} (self-signed, {@code CN=localhost}, DNS name {@code localhost}, valid 2 days) and
     * {@code sec1.key} (its ECDSA P-256 key as an SEC1 {@code EC PRIVATE KEY}, encrypted with AES-128-CBC in the
     * PEM headers, as {@code openssl ec -aes128} writes it) into {@code dir}, with the BouncyCastle bundles of the
     * framework, so the test needs no {@code openssl} on the machine.
     */
    private static void writeSelfSignedEcKeyAndCertificate(Path dir, char[] password) throws Exception {
        // BouncyCastle's keys keep the curve inside the SEC1 structure, as RFC 5915 asks and openssl writes it
        BouncyCastleProvider bc = new BouncyCastleProvider();
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC", bc);
        generator.initialize(new ECGenParameterSpec("secp256r1"));
        KeyPair pair = generator.generateKeyPair();
        X500Name name = new X500Name("CN=localhost");
        Instant now = Instant.now();
        JcaX509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(name, BigInteger.valueOf(now.toEpochMilli()),
                Date.from(now.minus(1, ChronoUnit.HOURS)), Date.from(now.plus(2, ChronoUnit.DAYS)), name,
                pair.getPublic());
        builder.addExtension(Extension.subjectAlternativeName, false,
                new GeneralNames(new GeneralName(GeneralName.dNSName, "localhost")));
        X509Certificate certificate = new JcaX509CertificateConverter().getCertificate(
                builder.build(new JcaContentSignerBuilder("SHA256withECDSA").setProvider(bc).build(pair.getPrivate())));
        try (JcaPEMWriter pem = new JcaPEMWriter(Files.newBufferedWriter(dir.resolve("cert.pem")))) {
            pem.writeObject(certificate);
        }
        try (JcaPEMWriter pem = new JcaPEMWriter(Files.newBufferedWriter(dir.resolve("sec1.key")))) {
            pem.writeObject(pair.getPrivate(), new JcePEMEncryptorBuilder("AES-128-CBC")
                    .setProvider(bc).build(password));
        }
    }
}
