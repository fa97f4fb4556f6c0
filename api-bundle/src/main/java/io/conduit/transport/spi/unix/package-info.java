/**
 * SPI for transport implementers on Unix-like systems: transport-neutral helpers that native (JNI) transports
 * share — {@link io.conduit.transport.spi.unix.NativeConstants} for the constants a library publishes at load
 * time, {@link io.conduit.transport.spi.unix.UnixErrors} for the {@code -errno} convention and typed exceptions,
 * {@link io.conduit.transport.spi.unix.NativeIoException} for failed system calls,
 * {@link io.conduit.transport.spi.unix.SockaddrCodec} for raw socket addresses (Linux abstract Unix names
 * included where the transport has them), {@link io.conduit.transport.spi.unix.NativeMemory} for kernel structs in
 * direct memory (without {@code sun.misc.Unsafe}) and {@link io.conduit.transport.spi.unix.IovArray} for
 * {@code struct iovec} arrays. Above the system calls, {@link io.conduit.transport.spi.unix.UnixSockets} holds the
 * socket logic the transports share (dual-stack open, bind, listen, shutdown, addresses, options), calling the
 * transport's natives through {@link io.conduit.transport.spi.unix.SocketCalls}, with the options each transport
 * maps in a {@link io.conduit.transport.spi.unix.SocketOptionTable}; {@link io.conduit.transport.spi.unix.LinuxMulticast}
 * is multicast membership and the outgoing interface on Linux UDP sockets, and
 * {@link io.conduit.transport.spi.unix.LinuxDatagrams} the datagram-socket logic of the Linux transports (address
 * rules, connect and disconnect, failed sends, multicast options) over the message headers of
 * {@link io.conduit.transport.spi.unix.MsghdrArray} ({@code struct msghdr}/{@code struct mmsghdr}, senders and
 * {@code IP_ORIGDSTADDR} control messages); {@link io.conduit.transport.spi.unix.SplicePipeDescriptors} holds the
 * kernel pipe of a zero-copy forwarding. Their C counterpart is
 * {@code native-fragments/src/main/c/unix/conduit_unix.c}, compiled into every Unix transport's library.
 * Everything that differs between platforms — errno values, {@code strerror(3)} text, struct sizes and offsets,
 * the address of a direct buffer — is passed in by the transport from its own native library; nothing here is
 * hard-coded for one platform, and nothing here loads a native library.
 */
@Export
@Version("0.8.0")
package io.conduit.transport.spi.unix;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
