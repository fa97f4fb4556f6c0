package io.conduit.gateway.internal.config;

import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.ChannelPipeline;
import io.conduit.handler.limit.ConnectionLimit;
import io.conduit.handler.timeout.IdleStateEvent;
import io.conduit.handler.timeout.IdleStateHandler;

/**
 * The keys that guard a stream listener of an echo or relay configuration, validated:
 *
 * <ul>
 *   <li>{@code idle.timeout.ms}: a connection that neither reads nor writes a byte for this long is closed (a relay
 *       then closes the upstream side too, after flushing). Unset: no timeout.</li>
 *   <li>{@code max.connections}: connections open at once through one listener. A connection beyond it is accepted
 *       and closed at once; the listener's {@link ConnectionLimit} logs one WARNING per 10 s with the count. Unset:
 *       no limit.</li>
 * </ul>
 *
 * @param idleTimeoutMillis idle time in milliseconds after which a connection is closed, or 0 for never
 * @param maxConnections    connections one listener keeps open at once, or 0 for no limit
 */
public record StreamGuards(int idleTimeoutMillis, int maxConnections) {

    /** The key of {@link #idleTimeoutMillis()}. */
    static final String IDLE_TIMEOUT_KEY = "idle.timeout.ms";
    /** The key of {@link #maxConnections()}. */
    static final String MAX_CONNECTIONS_KEY = "max.connections";

    /**
     * @param props component properties
     * @return the guards they set
     * @throws IllegalArgumentException naming the key, the value and the range, for a value that is not a whole number
     *         from 1 to 2147483647
     */
    static StreamGuards from(Map<String, ?> props) {
        return new StreamGuards(GatewayConfig.positiveOrOff(props, IDLE_TIMEOUT_KEY, 300_000),
                GatewayConfig.positiveOrOff(props, MAX_CONNECTIONS_KEY, 10_000));
    }

    /**
     * @param owner what its warning names, e.g. {@code "relay io.conduit.gateway.relay-redis.cfg"}
     * @return a new limit for one listener, or {@code null} when {@link #maxConnections()} is 0
     */
    public ConnectionLimit newLimit(String owner) {
        return maxConnections == 0 ? null : new ConnectionLimit(maxConnections, owner);
    }

    /**
     * Puts the guards first into an accepted connection's pipeline: the listener's limit gate (so a rejected
     * connection reaches no other handler), then the idle timeout.
     *
     * @param limit the listener's {@link #newLimit(String)}, or {@code null}
     */
    public void addFirst(ChannelPipeline pipeline, ConnectionLimit limit) {
        if (idleTimeoutMillis > 0) {
            pipeline.addFirst("idle-timeout", new IdleClose(idleTimeoutMillis));
        }
        if (limit != null) {
            pipeline.addFirst("max-connections", limit.newHandler());
        }
    }

    /**
     * Closes its channel once it has read and written nothing for the timeout (all-idle; a read in progress counts as
     * activity). The close is logged at DEBUG only: idle clients are routine. One instance per channel.
     */
    static final class IdleClose extends IdleStateHandler {

        private static final System.Logger LOG = System.getLogger("io.conduit.gateway");

        /** @param idleTimeoutMillis milliseconds without a byte either way; {@code > 0} */
        IdleClose(long idleTimeoutMillis) {
            super(0, 0, idleTimeoutMillis, TimeUnit.MILLISECONDS);
        }

        @Override
        protected void channelIdle(ChannelHandlerContext ctx, IdleStateEvent event) {
            LOG.log(System.Logger.Level.DEBUG, () -> "closing idle connection " + ctx.channel() + " (no byte for "
                    + getAllIdleTime(TimeUnit.MILLISECONDS) + " ms)");
            ctx.close();
        }
    }
}
