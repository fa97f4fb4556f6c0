package io.conduit.testsuite;

import io.conduit.channel.Channel;
import io.conduit.concurrent.Future;
import io.conduit.internal.channel.access.DatagramHandOver;

import java.net.InetSocketAddress;

/**
 * What the channel core offers beyond the channel API, for the transports' tests: their test classes compile on the
 * module path, where the API bundle's internal packages are not visible; the testsuite reaches them on the class path.
 */
public final class CoreChannels {

    private CoreChannels() {
    }

    /** @see DatagramHandOver#connectAway */
    public static Future<Boolean> connectAway(Channel channel, InetSocketAddress sink) {
        return DatagramHandOver.connectAway(channel, sink);
    }
}
