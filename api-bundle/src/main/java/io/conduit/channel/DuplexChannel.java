package io.conduit.channel;

import io.conduit.concurrent.Future;
import org.osgi.annotation.versioning.ProviderType;

/**
 * A stream channel whose two directions can be shut down separately (TCP, Unix-domain stream sockets),
 * following {@code shutdown(2)}.
 *
 * <p>With {@link ChannelOption#ALLOW_HALF_CLOSURE} on, end-of-stream from the peer shuts the input down and
 * fires exactly one {@link InputShutdownEvent} followed by exactly one {@link InputShutdownReadCompleteEvent};
 * the output stays usable. With the option off, end-of-stream closes the channel.
 */
@ProviderType
public interface DuplexChannel extends Channel {

    boolean isInputShutdown();

    boolean isOutputShutdown();

    /** @return {@code true} when both directions are shut down */
    boolean isShutdown();

    /** {@code shutdown(SHUT_RD)}; fires {@link InputShutdownEvent} once. */
    Future<Void> shutdownInput();

    /** Flushes nothing more: pending unflushed writes fail; then {@code shutdown(SHUT_WR)}, the peer reads EOF. */
    Future<Void> shutdownOutput();

    /** Both directions. */
    Future<Void> shutdown();
}
