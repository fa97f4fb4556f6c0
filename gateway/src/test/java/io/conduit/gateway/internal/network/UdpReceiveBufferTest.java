package io.conduit.gateway.internal.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.conduit.channel.ChannelOption;
import io.conduit.channel.DatagramChannel;
import io.conduit.gateway.internal.LogCapture;
import io.conduit.gateway.internal.echo.EchoHandler;
import io.conduit.transport.Transports;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A UDP endpoint's socket gets the receive buffer its configuration asks for ({@code udp.receive.buffer.bytes}), on
 * every transport, and the operator is told in one line when the kernel gave less ({@code net.core.rmem_max}). Before,
 * the gateway left {@code SO_RCVBUF} at the kernel's default, and 100 clients with 16 datagrams in flight each lost
 * 1 to 4 % of them on loopback (the kernel's {@code RcvbufErrors} counted every one).
 */
class UdpReceiveBufferTest {

    @AfterEach
    void cleanUp() {
        Transports.setPreference(null);
    }

    /** @return {@code net.core.rmem_max}: Linux caps {@code SO_RCVBUF} there and reports twice the value it set */
    private static int rmemMax() throws Exception {
        // a stream, not Files.readString: that one reads a /proc file of size 0 as its first byte only (JDK 17)
        try (java.io.InputStream in = Files.newInputStream(Path.of("/proc/sys/net/core/rmem_max"))) {
            return Integer.parseInt(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII).strip());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"epoll", "io_uring", "nio"})
    void theSocketOfEveryTransportGetsTheReceiveBufferAskedFor(String transport) throws Exception {
        Transports.setPreference(transport);
        int asked = Math.min(1 << 20, rmemMax());
        BootstrapNetwork network = new BootstrapNetwork();
        Network.Bound echo = network.bindDatagram(GatewayUri.parse("udp://127.0.0.1:0"),
                Map.of(ChannelOption.SO_RCVBUF, asked), udp -> new EchoHandler())
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
        try {
            assertEquals(transport, echo.transportName());
            DatagramChannel ch = channelOf(network);
            // Linux reports twice what it was given; the JDK behind nio reports the value given
            int got = ch.config().getOption(ChannelOption.SO_RCVBUF);
            assertTrue(got >= asked, "SO_RCVBUF " + got + ", asked for " + asked);
        } finally {
            echo.close();
        }
    }

    @Test
    void aReceiveBufferTheKernelCapsIsOneInfoLineNamingTheSysctl() throws Exception {
        Transports.setPreference("epoll");
        int asked = (int) Math.min(Integer.MAX_VALUE, 4L * rmemMax());
        BootstrapNetwork network = new BootstrapNetwork();
        try (LogCapture log = new LogCapture()) {
            Network.Bound echo = network.bindDatagram(GatewayUri.parse("udp://127.0.0.1:0"),
                    Map.of(ChannelOption.SO_RCVBUF, asked), udp -> new EchoHandler())
                    .toCompletableFuture().get(10, TimeUnit.SECONDS);
            try {
                int got = 2 * rmemMax();
                List<String> lines = log.messages().stream().filter(m -> m.contains("SO_RCVBUF")).toList();
                assertEquals(List.of("INFO udp://127.0.0.1:0: the receive buffer (SO_RCVBUF) is " + got + " bytes, "
                        + "below the " + asked + " asked for ('udp.receive.buffer.bytes'): the kernel caps it at "
                        + "net.core.rmem_max; to get it, run sysctl -w net.core.rmem_max=" + asked), lines);
            } finally {
                echo.close();
            }
        }
    }

    /** @return the channel of the one datagram endpoint {@code network} has */
    private static DatagramChannel channelOf(BootstrapNetwork network) throws Exception {
        java.lang.reflect.Field f = BootstrapNetwork.class.getDeclaredField("datagramEndpoints");
        f.setAccessible(true);
        @SuppressWarnings("unchecked")
        List<io.conduit.transport.ManagedDatagramEndpoint> all = (List<io.conduit.transport.ManagedDatagramEndpoint>)
                f.get(network);
        assertEquals(1, all.size());
        return all.get(0).channel();
    }
}
