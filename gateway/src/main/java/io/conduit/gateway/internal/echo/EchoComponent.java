package io.conduit.gateway.internal.echo;

import java.util.LinkedHashMap;
import java.util.Map;

import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelInitializer;
import io.conduit.channel.ChannelOption;
import io.conduit.gateway.internal.config.ConfigurationFiles;
import io.conduit.gateway.internal.config.EchoConfig;
import io.conduit.gateway.internal.config.GatewayConfig;
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
import io.conduit.handler.limit.ConnectionLimit;
import io.conduit.handler.ssl.TlsContextSource;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

/**
 * The echo service: one instance per factory configuration {@value EchoConfig#FACTORY_PID} (FileInstall:
 * {@code conf/io.conduit.gateway.echo-<name>.cfg}), listening on every URI of its {@code listen} property with an
 * {@link EchoHandler}. A malformed configuration or an endpoint that cannot be bound is logged as one WARNING line and
 * shown in its {@link GatewayStatus}; the other endpoints and components keep running.
 */
@Component(name = EchoConfig.FACTORY_PID, configurationPid = EchoConfig.FACTORY_PID,
        configurationPolicy = ConfigurationPolicy.REQUIRE, service = {}, immediate = true)
public final class EchoComponent {

    private final Network network;
    private final Listeners listeners;
    private final ComponentStatus status;
    /** The counters of the endpoints, in scrapes of the metrics endpoint; {@code null} without a valid configuration. */
    private volatile ComponentMetrics metrics;

    /**
     * @param network the gateway's network (a mandatory, static reference)
     * @param context this bundle's context, for the status service
     * @param props   the configuration
     */
    @Activate
    public EchoComponent(@Reference Network network, BundleContext context, Map<String, Object> props) {
        this.network = network;
        String name = GatewayConfig.name(props);
        this.listeners = new Listeners("echo " + name, EarlierFailures.GATEWAY);
        this.status = new ComponentStatus(name, GatewayConfig.pid(props), "echo", listeners);
        if (ConfigurationFiles.reportsSingleton(context, EchoConfig.FACTORY_PID, props)) {
            return; // a file without '-<name>': ConfigurationFiles has said so
        }
        EchoConfig config;
        try {
            config = EchoConfig.from(props);
        } catch (IllegalArgumentException e) {
            listeners.fail("bad configuration: " + e.getMessage());
            status.publish(context);
            return;
        }
        EchoHandler echo = new EchoHandler();
        Map<ChannelOption<?>, Object> childOptions = new LinkedHashMap<>();
        childOptions.put(ChannelOption.ALLOW_HALF_CLOSURE, Boolean.TRUE);
        ComponentMetrics m = new ComponentMetrics("echo", name, null, listeners);
        metrics = m;
        m.register(context);
        listeners.onChange(status::update);
        listeners.announceBinds(() -> !ComponentStatus.bannerPending(context));
        // the certificate as the listener serves it now: after a reload, the new one
        listeners.bindAll(config.listen(), bound -> bound.startsWith("tls:")
                ? bound + config.tls().certificateShown() : bound, network,
                endpoint -> endpoint.kind().isStream()
                ? this.network.listen(endpoint, childOptions, streamHandler(config.guards(), "echo " + name,
                        endpoint.tls() ? config.tls().server() : null, echo, m.endpoint(endpoint)))
                : this.network.bindDatagram(endpoint, Map.<ChannelOption<?>, Object>of(ChannelOption.SO_RCVBUF,
                        config.udpReceiveBufferBytes()), udp -> datagramHandler(echo, m.endpoint(endpoint))))
                .thenRun(() -> status.publish(context));
    }

    /** @return the handler of a UDP endpoint's channels: {@code echo} behind a {@link DatagramTrafficHandler} */
    static ChannelHandler datagramHandler(EchoHandler echo, EndpointCounters counters) {
        DatagramTrafficHandler traffic = new DatagramTrafficHandler(counters);
        return new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast("traffic", traffic);
                ch.pipeline().addLast("echo", echo);
            }
        };
    }

    /**
     * @param owner    what the connection limit's warning names, e.g.
     *                 {@code "echo io.conduit.gateway.echo-default.cfg"}
     * @param tls      the contexts that terminate TLS on this listener ({@code tls://}), or {@code null}
     * @param counters the endpoint's counters (bytes as on the wire: TLS records on a {@code tls://} listener)
     * @return the child handler of one stream listener: a {@link TrafficHandler} counting into {@code counters}, the
     *         {@link StreamGuards} with a connection limit of its own, the TLS handler with its
     *         {@link TlsFailureCounter}, and {@code echo}
     */
    static ChannelHandler streamHandler(StreamGuards guards, String owner, TlsContextSource tls, EchoHandler echo,
            EndpointCounters counters) {
        ConnectionLimit limit = guards.newLimit(owner);
        TlsFailureCounter tlsFailures = new TlsFailureCounter(counters, EndpointCounters.Side.CLIENT);
        return new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                guards.addFirst(ch.pipeline(), limit);
                ch.pipeline().addFirst("traffic", TrafficHandler.client(counters));
                if (tls != null) {
                    ch.pipeline().addLast("tls", tls.newServerHandler());
                    ch.pipeline().addLast("tls-failures", tlsFailures);
                }
                ch.pipeline().addLast("echo", echo);
            }
        };
    }

    /** Closes the listeners and withdraws the status and the metrics. */
    @Deactivate
    public void deactivate(int reason) {
        status.withdraw();
        if (metrics != null) {
            metrics.unregister();
        }
        listeners.close(ConfigurationFiles.deactivated(reason));
    }
}
