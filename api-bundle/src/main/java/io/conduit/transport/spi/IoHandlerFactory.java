package io.conduit.transport.spi;

import org.osgi.annotation.versioning.ConsumerType;

/** Makes one {@link IoHandler} per event loop; called on the new loop's thread before it runs. */
@ConsumerType
@FunctionalInterface
public interface IoHandlerFactory {
    /**
     * @return a new handler
     * @throws RuntimeException when the poller cannot be created (the message names the system call and errno)
     */
    IoHandler newHandler();
}
