package io.conduit.gateway.internal.metrics;

import java.util.List;
import java.util.Map;

import io.conduit.channel.Channel;
import io.conduit.channel.ChannelInitializer;
import io.conduit.channel.ChannelOption;
import io.conduit.gateway.internal.config.ConfigurationFiles;
import io.conduit.gateway.internal.config.Configurations;
import io.conduit.gateway.internal.config.GatewayConfig;
import io.conduit.gateway.internal.config.MetricsConfig;
import io.conduit.gateway.internal.config.StreamGuards;
import io.conduit.gateway.internal.network.EarlierFailures;
import io.conduit.gateway.internal.network.Listeners;
import io.conduit.gateway.internal.network.Network;
import io.conduit.gateway.internal.status.ComponentStatus;
import io.conduit.gateway.internal.status.GatewayStatus;
import io.conduit.handler.limit.ConnectionLimit;
import io.conduit.handler.logging.RateLimitedLog;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/**
 * The gateway's metrics endpoint: one instance for the configuration {@value MetricsConfig#PID} (FileInstall:
 * {@code conf/io.conduit.gateway.metrics.cfg}). It listens on {@code listen} through the gateway's {@link Network},
 * like the echo and relay endpoints, so it follows transport swaps, and answers HTTP/1.1 ({@link HttpRequestDecoder},
 * {@link MetricsHttpHandler}):
 *
 * <ul>
 *   <li>{@code GET /metrics}: every {@link MetricsCollector} service writes its families into one {@link Exposition};
 *       the echo and relay components register one each ({@link ComponentMetrics});</li>
 *   <li>{@code GET /health}: {@link Health} from every {@link GatewayStatus} service and Configuration Admin's echo and
 *       relay configurations.</li>
 * </ul>
 *
 * <p>Like the other components it publishes a {@link GatewayStatus} (kind {@code metrics}): the banner and
 * {@code conduit:gateway} show its URL, and a port in use is one WARNING line, a banner problem, and a bind tried again
 * every few seconds, while the rest of the gateway runs. A blank or missing {@code listen} turns the endpoint off: the
 * status then lists nothing. {@code max.connections} and {@code idle.timeout.ms} bound its connections
 * ({@link MetricsConfig}: 64 and 60 s unless set), and a request head must end 10 s after its first byte
 * ({@link HttpRequestDecoder}).
 *
 * <p>Thread-safe: the collector and status lists are replaced whole by Declarative Services (volatile fields).
 */
@Component(name = MetricsConfig.PID, configurationPid = MetricsConfig.PID,
        configurationPolicy = ConfigurationPolicy.REQUIRE, service = {}, immediate = true)
public final class MetricsComponent {

    private static final System.Logger LOG = System.getLogger("io.conduit.gateway");

    private final BundleContext context;
    private final Listeners listeners;
    private final ComponentStatus status;
    /** Collectors that threw during a scrape: the first at once, then a count every few seconds. */
    private final RateLimitedLog collectorFailures = new RateLimitedLog(LOG, System.Logger.Level.WARNING);

    /** The collectors, in service ranking order; replaced whole by Declarative Services. */
    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    private volatile List<MetricsCollector> collectors;

    /** Every component's status; replaced whole by Declarative Services. */
    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    private volatile List<GatewayStatus> statuses;

    /**
     * @param network the gateway's network (a mandatory, static reference)
     * @param context this bundle's context, for the status service and Configuration Admin
     * @param props   the configuration
     */
    @Activate
    public MetricsComponent(@Reference Network network, BundleContext context, Map<String, Object> props) {
        this.context = context;
        String name = GatewayConfig.name(props);
        this.listeners = new Listeners("metrics " + name, EarlierFailures.GATEWAY);
        this.status = new ComponentStatus(name, GatewayConfig.pid(props), "metrics", listeners);
        if (ConfigurationFiles.reportsFactory(context, props)) {
            return; // io.conduit.gateway.metrics-x.cfg: ConfigurationFiles has said so
        }
        MetricsConfig config;
        try {
            config = MetricsConfig.from(props);
        } catch (IllegalArgumentException e) {
            listeners.fail("bad configuration: " + e.getMessage());
            status.publish(context);
            return;
        }
        if (config.listen() == null) {
            LOG.log(System.Logger.Level.INFO, "metrics " + name + ": no 'listen': the metrics endpoint is off");
            status.publish(context);
            return;
        }
        Map<ChannelOption<?>, Object> childOptions = Map.of(ChannelOption.ALLOW_HALF_CLOSURE, Boolean.TRUE);
        StreamGuards guards = config.guards();
        ConnectionLimit limit = guards.newLimit("metrics " + name);
        ChannelInitializer<Channel> http = new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                guards.addFirst(ch.pipeline(), limit);
                ch.pipeline().addLast("http-decoder", new HttpRequestDecoder());
                ch.pipeline().addLast("http", new MetricsHttpHandler(MetricsComponent.this::scrape,
                        MetricsComponent.this::health));
            }
        };
        listeners.onChange(status::update);
        listeners.announceBinds(() -> !ComponentStatus.bannerPending(context));
        listeners.bindAll(List.of(config.listen()), MetricsComponent::shown, network,
                endpoint -> network.listen(endpoint, childOptions, http))
                .thenRun(() -> status.publish(context));
    }

    /**
     * @param bound the bound endpoint, e.g. {@code tcp://127.0.0.1:9464}
     * @return it with the URL to scrape, e.g. {@code tcp://127.0.0.1:9464 (http://127.0.0.1:9464/metrics, /health)}
     */
    static String shown(String bound) {
        if (bound.startsWith("tcp://")) {
            return bound + " (http://" + bound.substring("tcp://".length()) + "/metrics, /health)";
        }
        return bound + " (GET /metrics, /health)";
    }

    /** @return one scrape: every collector's families */
    String scrape() {
        Exposition scrape = new Exposition();
        List<MetricsCollector> now = collectors;
        for (MetricsCollector c : now == null ? List.<MetricsCollector>of() : now) {
            try {
                c.collect(scrape);
            } catch (RuntimeException e) {
                collectorFailures.occurred(() -> "metrics: collector " + c + " failed: " + e);
            }
        }
        return scrape.text();
    }

    /** @return the gateway's health now */
    Health health() {
        List<GatewayStatus> now = statuses;
        return Health.of(now == null ? List.of() : now, configured());
    }

    /**
     * @return Configuration Admin's echo and relay configurations, to tell those still starting; none when it cannot
     *         be asked (its optional package is not wired, or it is not running): then only reported problems count
     */
    private List<Configurations.Configured> configured() {
        try {
            if (context.getServiceReference(Configurations.CONFIGURATION_ADMIN) == null) {
                return List.of();
            }
            return Configurations.list(context);
        } catch (java.io.IOException | LinkageError | IllegalStateException e) {
            return List.of();
        }
    }

    /** Closes the listener (and its connections) and withdraws the status. */
    @Deactivate
    public void deactivate(int reason) {
        status.withdraw();
        listeners.close(ConfigurationFiles.deactivated(reason));
        collectorFailures.flush();
    }
}
