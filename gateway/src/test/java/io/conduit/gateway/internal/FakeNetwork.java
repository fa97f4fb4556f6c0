package io.conduit.gateway.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.conduit.channel.Channel;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.embedded.EmbeddedChannel;
import io.conduit.concurrent.EventLoop;
import io.conduit.concurrent.Future;
import io.conduit.concurrent.Promise;
import io.conduit.gateway.internal.network.GatewayUri;
import io.conduit.gateway.internal.network.Network;

/** A {@link Network} whose connects make {@link TestDuplexChannel}s, completed when the test says so. */
public class FakeNetwork implements Network {

    public record Connect(GatewayUri endpoint, Map<ChannelOption<?>, Object> options, ChannelHandler handler,
            Promise<Channel> promise) {
    }

    public final List<Connect> connects = new ArrayList<>();
    /** When set, {@link #connect} throws it instead of returning a future (a connect that cannot start). */
    public RuntimeException refuseWith;
    private final EmbeddedChannel promiseMaker = new EmbeddedChannel();

    @Override
    public String transportName() {
        return "fake";
    }

    @Override
    public java.util.concurrent.CompletionStage<Bound> listen(GatewayUri endpoint, List<GatewayUri> reaches,
            Map<ChannelOption<?>, Object> childOptions, ChannelHandler childHandler) {
        throw new UnsupportedOperationException();
    }

    @Override
    public java.util.concurrent.CompletionStage<Bound> bindDatagram(GatewayUri endpoint,
            Map<ChannelOption<?>, Object> options,
            java.util.function.Function<DatagramEndpoint, ChannelHandler> handler) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Future<Channel> connect(GatewayUri endpoint, EventLoop loop, Map<ChannelOption<?>, Object> options,
            ChannelHandler handler) {
        if (refuseWith != null) {
            throw refuseWith;
        }
        Promise<Channel> p = promiseMaker.eventLoop().newPromise();
        connects.add(new Connect(endpoint, Map.copyOf(options), handler, p));
        return p;
    }

    /** Completes connect {@code i} with a new channel carrying the handler it was given. */
    public TestDuplexChannel succeed(int i) {
        Connect c = connects.get(i);
        TestDuplexChannel ch = new TestDuplexChannel(c.handler());
        c.promise().setSuccess(ch);
        return ch;
    }
}
