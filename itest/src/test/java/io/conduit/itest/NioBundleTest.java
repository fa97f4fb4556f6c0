package io.conduit.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.options;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import javax.inject.Inject;

import io.conduit.buffer.Buffer;
import io.conduit.bootstrap.Bootstrap;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.bootstrap.ServerBootstrap;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.transport.ChannelType;
import io.conduit.transport.Diagnostics;
import io.conduit.transport.Transport;
import io.conduit.transport.TransportSelection;
import io.conduit.transport.Transports;
import io.conduit.transport.spi.TransportProvider;
import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.FrameworkUtil;
import org.osgi.framework.ServiceReference;

/**
 * The nio bundle in a framework with SCR: its providers are DS services, {@code nio} is selected by default, and
 * real I/O works inside the framework (a TCP echo over loopback).
 */
@RunWith(PaxExam.class)
public class NioBundleTest {

    @Inject
    private BundleContext context;

    @Configuration
    public Option[] config() {
        return options(ItestOptions.base(), ItestOptions.ours("conduit.itest.nioJar"));
    }

    @Before
    public void allBundlesStarted() {
        Osgi.assertAllBundlesActive(context);
    }

    @Test
    public void nioProvidersAreDeclarativeServicesWithTheirProperties() throws Exception {
        Bundle nio = Osgi.bundle(context, "io.conduit.nio");
        Collection<ServiceReference<TransportProvider>> refs = context.getServiceReferences(TransportProvider.class,
                null);
        List<String> seen = new ArrayList<>();
        for (ServiceReference<TransportProvider> ref : refs) {
            assertEquals("registered by the nio bundle", nio, ref.getBundle());
            String name = (String) ref.getProperty("conduit.transport.name");
            seen.add(name);
            boolean expectedAvailable = !"nio-vthread".equals(name) || Runtime.version().feature() >= 21;
            assertEquals(name + " conduit.transport.available", expectedAvailable,
                    ref.getProperty("conduit.transport.available"));
            assertEquals(name + " service.ranking", "nio".equals(name) ? 10 : 5, ref.getProperty("service.ranking"));
            TransportProvider p = context.getService(ref);
            try {
                assertEquals(name, p.name());
                assertEquals(expectedAvailable, p.availability().isAvailable());
            } finally {
                context.ungetService(ref);
            }
        }
        seen.sort(null);
        assertEquals(List.of("nio", "nio-vthread"), seen);
    }

    @Test
    public void nioIsSelectedByDefaultWithoutNativeTransports() throws Exception {
        TransportSelection s = Transports.selection();
        assertEquals(s.explain(), "nio", s.selectedName());
        assertEquals(TransportSelection.PreferenceSource.DEFAULT, s.preferenceSource());
        Transport t = Transports.selected();
        assertEquals("nio", t.name());
        assertEquals("the transport comes from the nio bundle", "io.conduit.nio",
                FrameworkUtil.getBundle(t.getClass()).getSymbolicName());
        ServiceReference<Transport> ref = context.getServiceReference(Transport.class);
        assertNotNull("Transport service", ref);
        assertEquals("nio", ref.getProperty("conduit.transport.name"));
        assertEquals(10, ref.getProperty("service.ranking"));

        String report = Diagnostics.report();
        assertTrue(report, report.contains("nio-vthread"));
        // conduit-nio is also on the launcher's class path (META-INF/services): discovery must not report it
        assertTrue(report, !report.contains("could not be loaded"));
        if (Runtime.version().feature() < 21) {
            assertTrue(report, report.contains("21"));
        }
    }

    @Test
    public void stoppingTheNioBundleWithdrawsItsTransport() throws Exception {
        Bundle nio = Osgi.bundle(context, "io.conduit.nio");
        nio.stop();
        assertTrue(Transports.providers().isEmpty());
        assertEquals(null, context.getServiceReference(Transport.class));
        nio.start();
        Osgi.await("nio to be selected again after a restart of its bundle",
                () -> "nio".equals(Transports.selection().selectedName()), Transports.selection()::explain);
    }

    private String gogo(String command) {
        return Osgi.gogo(context, command);
    }

    private static String row(String table, String id) {
        return table.lines().filter(l -> l.startsWith(id + " ")).findFirst()
                .orElseThrow(() -> new AssertionError("no row for channel " + id + " in\n" + table));
    }

    @ChannelHandler.Sharable
    private static final class Echo implements ChannelHandler {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.writeAndFlush(msg);
        }
    }

    @Test
    public void tcpEchoOverLoopbackThroughTheSelectedTransport() throws Exception {
        Transport transport = Transports.selected();
        assertEquals("nio", transport.name());
        try (EventLoopGroup group = transport.newEventLoopGroup(1)) {
            Channel server = new ServerBootstrap().transport(transport).group(group).channelType(ChannelType.TCP)
                    .childHandler(new Echo())
                    .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).get(10, TimeUnit.SECONDS);
            CompletableFuture<String> echoed = new CompletableFuture<>();
            StringBuilder received = new StringBuilder();
            Channel client = new Bootstrap().transport(transport).group(group).channelType(ChannelType.TCP)
                    .handler(new ChannelHandler() {
                        @Override
                        public void channelRead(ChannelHandlerContext ctx, Object msg) {
                            try (Buffer b = (Buffer) msg) {
                                byte[] bytes = new byte[b.readableBytes()];
                                b.readBytes(bytes);
                                received.append(new String(bytes, StandardCharsets.US_ASCII));
                            }
                            if (received.length() >= 5) {
                                echoed.complete(received.toString());
                            }
                        }
                    })
                    .connect(server.localAddress()).get(10, TimeUnit.SECONDS);
            Buffer hello = client.alloc().buffer(5).writeBytes("hello".getBytes(StandardCharsets.US_ASCII));
            client.writeAndFlush(hello).get(10, TimeUnit.SECONDS);
            assertEquals("hello", echoed.get(10, TimeUnit.SECONDS));

            // conduit:channels lists the listener, the client and the accepted channel with their traffic
            String channels = gogo("conduit:channels");
            assertTrue(channels, channels.contains("3 open channels"));
            String clientRow = row(channels, client.id());
            assertTrue(clientRow, clientRow.matches(".*\\bnio\\b.*\\s5\\s+5\\s+\\S+$"));
            assertTrue(clientRow, clientRow.contains(String.valueOf(((InetSocketAddress) server.localAddress())
                    .getPort())));
            String serverRow = row(channels, server.id());
            assertTrue(serverRow, serverRow.matches(".*\\s0\\s+0\\s+\\S+$"));

            client.close().get(10, TimeUnit.SECONDS);
            server.close().get(10, TimeUnit.SECONDS);
            Osgi.await("closed channels to leave the list", () -> gogo("conduit:channels").contains(
                    "0 open channels"), () -> gogo("conduit:channels"));
        }
    }
}
