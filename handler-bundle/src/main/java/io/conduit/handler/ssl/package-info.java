/**
 * TLS for channels: {@link io.conduit.handler.ssl.TlsContext} (an immutable context built from PEM files or a
 * PKCS#12 keystore), {@link io.conduit.handler.ssl.SniMapping} (a server's context chosen by the client's server
 * name) and {@link io.conduit.handler.ssl.TlsHandler} (the JDK's {@link javax.net.ssl.SSLEngine} in a pipeline,
 * client or server side, on every transport).
 *
 * <p>Reading PEM keys needs BouncyCastle ({@code bcprov}, {@code bcutil}, {@code bcpkix}, jdk18on); the bundle imports
 * it optionally, so the other handler packages work without it.
 */
@Export
@Version("0.2.0")
package io.conduit.handler.ssl;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
