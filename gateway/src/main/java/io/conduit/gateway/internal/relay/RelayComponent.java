package io.conduit.gateway.internal.relay;

import java.util.List;
import java.util.Map;

import io.conduit.channel.Channel;
import io.conduit.channel.ChannelInitializer;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.ChannelPipeline;
import io.conduit.gateway.internal.config.ConfigurationFiles;
import io.conduit.gateway.internal.config.GatewayConfig;
import io.conduit.gateway.internal.config.RelayConfig;
import io.conduit.gateway.internal.config.StreamGuards;
import io.conduit.gateway.internal.metrics.ComponentMetrics;
import io.conduit.gateway.internal.metrics.DatagramTrafficHandler;
import io.conduit.gateway.internal.metrics.EndpointCounters;
import io.conduit.gateway.internal.metrics.TlsFailureCounter;
import io.conduit.gateway.internal.metrics.TrafficHandler;
import io.conduit.gateway.internal.network.EarlierFailures;
import io.conduit.gateway.internal.network.Listeners;
import io.conduit.gateway.internal.network.Network;
import io.conduit.gateway.internal.status.ComponentStatus;
import io.conduit.gateway.internal.status.GatewayStatus;
import io.conduit.handler.limit.ByteRateLimitHandler;
import io.conduit.handler.limit.ConnectionLimit;
import io.conduit.handler.limit.TokenBucket;
import io.conduit.handler.logging.RateLimitedLog;
import io.conduit.handler.proxy.ProxyProtocolDecoder;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

/**
 * A relay: one instance per factory configuration {@value RelayConfig#FACTORY_PID} (FileInstall:
 * {@code conf/io.conduit.gateway.relay-<name>.cfg}); see {@link RelayConfig} for the properties. Stream relays
 * (TCP/Unix in any combination) hand each accepted connection to a {@link RelayFrontendHandler}; UDP relays keep per-client sessions in a {@link UdpRelayHandler}. A malformed
 * configuration, a relay that would close a loop of relays ({@link RelayLoops}) or a listen endpoint that cannot be
 * bound is logged as one WARNING line and shown in its
 * {@link GatewayStatus}; other components keep running.
 */
@Component(name = RelayConfig.FACTORY_PID, configurationPid = RelayConfig.FACTORY_PID,
        configurationPolicy = ConfigurationPolicy.REQUIRE, service = {}, immediate = true)
public final class RelayComponent {

    private final Listeners listeners;
    private final ComponentStatus status;
    /** Clients closed because the upstream was unreachable, counted for all connections of this relay. */
    private final RateLimitedLog unreachable = RelayFrontendHandler.unreachableLog();
    /** The counters of the endpoint, in scrapes of the metrics endpoint; {@code null} without a valid configuration. */
    private volatile ComponentMetrics metrics;
    /** Failed handshakes with the relay's {@code tls://} upstream, counted for all connections of this relay. */
    private final RateLimitedLog upstreamTlsFailures = RelayFrontendHandler.upstreamTlsFailureLog();
    /** Clients closed by SNI routing before they sent a ClientHello, counted for all connections of this relay. */
    private final RateLimitedLog sniClosed = RelayFrontendHandler.unreachableLog();

    /**
     * @param network the gateway's network (a mandatory, static reference)
     * @param context this bundle's context, for the status service
     * @param props   the configuration
     */
    @Activate
    public RelayComponent(@Reference Network network, BundleContext context, Map<String, Object> props) {
        String name = GatewayConfig.name(props);
        this.listeners = new Listeners("relay " + name, EarlierFailures.GATEWAY);
        this.status = new ComponentStatus(name, GatewayConfig.pid(props), "relay", listeners);
        if (ConfigurationFiles.reportsSingleton(context, RelayConfig.FACTORY_PID, props)) {
            return; // a file without '-<name>': ConfigurationFiles has said so
        }
        RelayConfig config;
        try {
            config = RelayConfig.from(props);
        } catch (IllegalArgumentException e) {
            listeners.fail("bad configuration: " + e.getMessage());
            status.publish(context);
            return;
        }
        String loop = RelayLoops.add(this, config);
        if (loop != null) {
            listeners.fail("bad configuration: " + loop);
            status.publish(context);
            return;
        }
        ComponentMetrics m = new ComponentMetrics("relay", name, config.upstream(), listeners);
        metrics = m;
        m.register(context);
        listeners.onChange(status::update);
        listeners.announceBinds(() -> !ComponentStatus.bannerPending(context));
        ConnectionLimit limit = config.guards().newLimit("relay " + name);
        String routes = config.routesBySni() ? " (by SNI: " + config.sniRoutes().entrySet().stream()
                .map(e -> e.getKey() + " -> " + e.getValue()).collect(java.util.stream.Collectors.joining(", ")) + ")"
                : "";
        // the certificate as the listener serves it now: after a reload, the new one
        listeners.bindAll(List.of(config.listen()), bound -> bound + " -> " + config.upstream()
                + config.tls().certificateShown() + routes, network,
                endpoint -> {
            EndpointCounters counters = m.endpoint(endpoint);
            TlsFailureCounter tlsFailures = new TlsFailureCounter(counters, EndpointCounters.Side.CLIENT);
            if (endpoint.kind().isStream()) {
                Map<ChannelOption<?>, Object> childOptions = RelayFrontendHandler.connectionOptions(config);
                // the listener runs only where the upstream is reachable too (e.g. unix:@name: epoll)
                ChannelInitializer<Channel> init = new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        addClientHandlers(ch.pipeline(), config, limit, sniClosed);
                        ch.pipeline().addFirst("traffic", TrafficHandler.client(counters));
                        if (config.listen().tls()) {
                            ch.pipeline().addAfter("tls", "tls-failures", tlsFailures);
                        }
                        ch.pipeline().addLast("relay-frontend", new RelayFrontendHandler(config, network, unreachable,
                                counters, upstreamTlsFailures));
                    }
                };
                return network.listen(endpoint, config.upstreams(), childOptions, init);
            }
            DatagramTrafficHandler traffic = new DatagramTrafficHandler(counters);
            return network.bindDatagram(endpoint, Map.<ChannelOption<?>, Object>of(
                    ChannelOption.SO_RCVBUF, config.udpReceiveBufferBytes()), udp -> {
                UdpRelayHandler relay = new UdpRelayHandler(config, network, udp, counters);
                return new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast("traffic", traffic);
                        ch.pipeline().addLast("relay", relay);
                    }
                };
            });
        }).thenRun(() -> status.publish(context));
    }

    /**
     * Adds what a stream relay's client connection passes before its {@link RelayFrontendHandler}: the connection
     * limit and idle timeout ({@link StreamGuards}), the rate limit ({@code rate.limit.bytes.per.second}), the PROXY
     * header decoder ({@code proxy.protocol.accept}; the header precedes TLS), and TLS ({@code listen = tls://}) or
     * SNI routing ({@code sni.routes}), in this order.
     *
     * @param limit     the listener's connection limit, or {@code null}
     * @param sniClosed where SNI routing counts the clients it closes
     */
    static void addClientHandlers(ChannelPipeline pipeline, RelayConfig config, ConnectionLimit limit,
            RateLimitedLog sniClosed) {
        config.guards().addFirst(pipeline, limit);
        if (config.rateLimitBytesPerSecond() > 0) {
            pipeline.addLast("rate-limit", new ByteRateLimitHandler(new TokenBucket(config.rateLimitBytesPerSecond())));
        }
        if (config.proxyAccept() != null) {
            pipeline.addLast("proxy-protocol", new ProxyProtocolDecoder(config.proxyAccept()));
        }
        if (config.listen().tls()) {
            pipeline.addLast("tls", config.tls().server().newServerHandler());
        }
        if (config.routesBySni()) {
            pipeline.addLast("sni-route", new SniRouteHandler(config.sniRoutes(), config.upstream(), sniClosed));
        }
    }

    /**
     * Closes the listener, drains its relayed connections (flush, then close; see {@code ManagedServer}) and withdraws
     * the status and the metrics.
     */
    @Deactivate
    public void deactivate(int reason) {
        RelayLoops.remove(this);
        status.withdraw();
        if (metrics != null) {
            metrics.unregister();
        }
        listeners.close(ConfigurationFiles.deactivated(reason));
        unreachable.flush();
        upstreamTlsFailures.flush();
        sniClosed.flush();
    }
}
