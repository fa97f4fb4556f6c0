package io.conduit.testsuite;

import io.conduit.bootstrap.Bootstrap;
import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.UnixAbstractAddress;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.transport.ChannelType;
import io.conduit.transport.ManagedServer;
import io.conduit.transport.Transports;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A {@code ManagedServer} moving between the transport under test and nio under echo load, and staying on the
 * transport under test where nio cannot bind its address (a Linux abstract name).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class ManagedServerCrossTransportSwapTest {

    /**
     * @return the name of the registered transport under test; the suite swaps between it and {@code nio}, the
     *         fallback every installation has
     */
    protected abstract String transportUnderTest();

    @AfterEach
    void dropPreference() {
        Transports.setPreference(null);
    }

    @Test
    void followsTheTransportUnderTestAndNioUnderLoadWithoutCorruptionOrRefusal() throws Exception {
        assertTrue(Transports.get(transportUnderTest()).supports(io.conduit.channel.ChannelOption.SO_REUSEPORT));
        Transports.setPreference(transportUnderTest());
        ManagedServer server = new ManagedServer(new InetSocketAddress("127.0.0.1", 0))
                .childHandler(new EchoHandler()).gracePeriod(2, TimeUnit.SECONDS);
        try {
            InetSocketAddress address = (InetSocketAddress) server.start().sync().getNow();
            assertEquals(transportUnderTest(), server.transportName());
            AtomicLong attempted = new AtomicLong();
            AtomicLong refused = new AtomicLong();
            AtomicLong failed = new AtomicLong();
            AtomicLong verified = new AtomicLong();
            AtomicLong corrupted = new AtomicLong();
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2000);
            List<Thread> clients = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                int seed = i;
                Thread t = new Thread(() -> {
                    byte[] out = new byte[1024];
                    for (int n = 0; n < 20_000 && System.nanoTime() < deadline; n++) {
                        Arrays.fill(out, (byte) (seed * 31 + n));
                        attempted.incrementAndGet();
                        try (Socket s = new Socket()) {
                            try {
                                s.connect(address, 2000);
                            } catch (ConnectException e) {
                                refused.incrementAndGet();
                                continue;
                            }
                            s.setSoTimeout(2000);
                            s.getOutputStream().write(out);
                            InputStream in = s.getInputStream();
                            byte[] got = in.readNBytes(out.length);
                            if (got.length < out.length) {
                                throw new EOFException();
                            }
                            if (Arrays.equals(got, out)) {
                                verified.addAndGet(got.length);
                            } else {
                                corrupted.incrementAndGet();
                            }
                        } catch (IOException e) {
                            failed.incrementAndGet(); // reset, or cut by the drain of an old connection
                        }
                    }
                }, "swap-client-" + i);
                t.setDaemon(true);
                clients.add(t);
                t.start();
            }
            String[] order = {"nio", transportUnderTest(), "nio", transportUnderTest()};
            for (String next : order) {
                Thread.sleep(400);
                Transports.setPreference(next);
            }
            for (Thread t : clients) {
                t.join(10_000);
            }
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!transportUnderTest().equals(server.transportName()) || server.openConnections() > 0) {
                if (System.nanoTime() > end) {
                    fail("server on " + server.transportName() + " with " + server.openConnections() + " connections");
                }
                Thread.sleep(10);
            }
            String figures = "attempted=" + attempted + " refused=" + refused + " resetOrCut=" + failed
                    + " verifiedBytes=" + verified + " corrupted=" + corrupted;
            System.out.println(transportUnderTest() + "<->nio swap load: " + figures);
            assertEquals(0, corrupted.get(), figures);
            assertEquals(0, refused.get(), figures);
            assertTrue(verified.get() > 100 * 1024, figures);
        } finally {
            server.close().await(15, TimeUnit.SECONDS);
        }
    }

    /**
     * A listener on a Linux abstract name stays on the transport under test when nio (which cannot bind such names) is selected: no
     * failed swap, no closed listener, and new connections are still served.
     */
    @Test
    void abstractNameListenerStaysOnTheTransportUnderTestWhenNioIsSelected() throws Exception {
        UnixAbstractAddress name = UnixAbstractAddress.of("conduit-swap-" + ProcessHandle.current().pid());
        assertFalse(Transports.get("nio").supportsAddress(name));
        assertTrue(Transports.get(transportUnderTest()).supportsAddress(name));
        Transports.setPreference(transportUnderTest());
        ManagedServer server = new ManagedServer(name).channelType(ChannelType.UNIX_STREAM)
                .childHandler(new EchoHandler()).gracePeriod(2, TimeUnit.SECONDS);
        EventLoopGroup clients = Transports.get(transportUnderTest()).newEventLoopGroup(1);
        try {
            server.start().sync();
            Transports.setPreference("nio");
            Thread.sleep(300); // the swap thread runs the (refused) move
            assertEquals(transportUnderTest(), server.transportName());
            Channel client = new Bootstrap().transport(Transports.get(transportUnderTest())).group(clients)
                    .channelType(ChannelType.UNIX_STREAM).handler(new ChannelHandler() { })
                    .connect(name).sync().getNow();
            assertEquals(name, client.remoteAddress());
            client.close().sync();
            Transports.setPreference(transportUnderTest());
            Thread.sleep(100);
            assertEquals(transportUnderTest(), server.transportName());
        } finally {
            server.close().await(15, TimeUnit.SECONDS);
            clients.shutdownGracefully().await(15, TimeUnit.SECONDS);
        }
    }
}
