/**
 * Service provider interface for transport implementers: providers, I/O handlers, the shared event loop and channel core.
 *
 * <h2>Implementing a transport</h2>
 * A transport owns only its system calls; every channel semantic (reads, writes, half-closure, close, timeouts,
 * accept back-off) lives in the shared channel core, an implementation package of the API bundle that
 * {@link io.conduit.transport.spi.core.IoChannels} makes channels of.
 * <ol>
 * <li><b>Poller</b>: an {@link io.conduit.transport.spi.IoHandler} ({@code epoll_wait}, {@code kevent}, a
 *     {@link java.nio.channels.Selector}) made per loop by an {@link io.conduit.transport.spi.IoHandlerFactory};
 *     loops come from {@code new IoEventLoopGroup(nThreads, threadFactory, factory)}. For each ready socket it
 *     calls the {@link io.conduit.transport.spi.IoEvents} given at registration: {@code connectReady},
 *     {@code writeReady}, {@code readReady} (level-triggered semantics: the core may stop early, e.g. at
 *     {@code MAX_MESSAGES_PER_READ}, and expects to be told again while input remains). In
 *     {@code prepareToDestroy} it calls {@code loopShuttingDown()} of every registered socket.</li>
 * <li><b>Sockets</b>: {@link io.conduit.transport.spi.IoStreamSocket} (TCP, Unix stream),
 *     {@link io.conduit.transport.spi.IoServerSocket}, {@link io.conduit.transport.spi.IoDatagramSocket},
 *     optionally {@link io.conduit.transport.spi.IoPeerCredentials}: non-blocking calls that return
 *     "would block" as values ({@code 0}, {@code null}, {@code false}) and throw {@link java.io.IOException}s
 *     naming the call and the error; {@code interestOps} maps {@code OP_READ/OP_WRITE/OP_CONNECT} to the poller;
 *     {@code setOption} returns {@code false} for options the transport lacks (the core warns once).</li>
 * <li><b>Channels</b>: {@code Transport.newChannel}/{@code newServerChannel} wrap a socket in a channel of the
 *     core with {@link io.conduit.transport.spi.core.IoChannels} ({@code socketChannel}, {@code domainSocketChannel},
 *     {@code serverChannel}, {@code datagramChannel}, {@code domainDatagramChannel});
 *     {@code Bootstrap}/{@code ServerBootstrap} register them.
 *     {@link io.conduit.transport.spi.IoTransportSupport} keeps the groups a transport made and makes the checks
 *     (loop, channel type, core options) every transport shares; {@link io.conduit.transport.spi.AddressErrors}
 *     and {@link io.conduit.transport.spi.UnixSocketFile} do the same for addresses and Unix socket files. Native
 *     transports on Unix-like systems find their shared helpers in {@code io.conduit.transport.spi.unix}.</li>
 * <li><b>Provider</b>: a {@link io.conduit.transport.spi.TransportProvider} with its availability probe,
 *     registered with {@link java.util.ServiceLoader} (and as an OSGi service).</li>
 * <li><b>Conformance</b>: subclass every test of the {@code conduit-testsuite} module once, with named
 *     permutations including cross pairs with {@code nio}.</li>
 * </ol>
 */
@Export
@Version("0.11.0")
package io.conduit.transport.spi;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
