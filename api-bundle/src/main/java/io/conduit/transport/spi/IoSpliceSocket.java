package io.conduit.transport.spi;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Optional capability of an {@link IoStreamSocket}: moving its input to another stream socket through a kernel pipe
 * ({@code splice(2)} on Linux), which the channel core uses for {@link io.conduit.channel.ZeroCopyForwarding}.
 * Loop thread only, like {@link IoSocket}.
 */
@ConsumerType
public interface IoSpliceSocket extends IoStreamSocket {

    /**
     * @param target another socket
     * @return {@code true} when {@link #newSplicePipe} can move this socket's input to {@code target}, e.g. both are
     *         TCP sockets of this transport
     */
    boolean canSpliceTo(IoStreamSocket target);

    /**
     * A pipe from this socket's input to {@code target}'s output. The kernel pipe itself may be created lazily, on
     * the first {@link IoSplicePipe#fill()}.
     *
     * @param target a socket for which {@link #canSpliceTo} is {@code true}
     * @return the new pipe, owned by the caller, who must {@linkplain IoSplicePipe#close() close} it
     */
    IoSplicePipe newSplicePipe(IoStreamSocket target);
}
