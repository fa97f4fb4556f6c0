package io.conduit.channel;

/**
 * A {@link ChannelHandler} that knows something about its connection the socket cannot tell: who is really on the
 * other end behind a proxy (a PROXY protocol header), who the peer proved to be (a TLS certificate). The shell
 * command {@code conduit:channels} shows the facts of every handler in a channel's pipeline in its {@code PEER}
 * column, joined by {@code "; "}, in pipeline order.
 *
 * <p>Threading: {@link #connectionFacts()} is called from any thread (the shell's), while the channel's event loop
 * may change what the handler knows: read only fields published safely (final or volatile).
 *
 * @since 0.5
 */
public interface ConnectionFacts {

    /**
     * @return one short line for an operator, e.g. {@code "PROXY v2 from 203.0.113.7:51000"} or
     *         {@code "TLSv1.3 peer CN=device-42"}; {@code null} or empty when the handler knows nothing yet
     */
    String connectionFacts();
}
