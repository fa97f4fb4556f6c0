package io.conduit.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.options;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
import org.junit.Assume;
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
 * from PEM files (an encrypted SEC1 key) made by {@code openssl}.
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
        if (ItestFiles.onPath("openssl") == null) {
            // a fresh machine has no openssl: one line, then skipped (a failure under CONDUIT_REQUIRE_TOOLS=true)
            Assume.assumeTrue(ItestFiles.missing("'openssl' is not on the PATH", "install it with 'apt-get install -y"
                    + " openssl'"), false);
        }
        Path dir = Files.createTempDirectory("conduit-itest-tls");
        openssl(dir, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-keyout", "plain.key", "-out", "cert.pem", "-days", "2", "-subj", "/CN=localhost",
                "-addext", "subjectAltName=DNS:localhost");
        openssl(dir, "ec", "-in", "plain.key", "-aes128", "-passout", "pass:itest", "-out", "sec1.key");
        assertTrue(Files.readString(dir.resolve("sec1.key")).contains("BEGIN EC PRIVATE KEY"));
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

    private static void openssl(Path dir, String... args) throws IOException, InterruptedException {
        String[] cmd = new String[args.length + 1];
        cmd[0] = "openssl";
        System.arraycopy(args, 0, cmd, 1, args.length);
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(String.join(" ", cmd) + " failed (is openssl installed? apt-get install -y openssl): " + out,
                p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0);
    }
}
