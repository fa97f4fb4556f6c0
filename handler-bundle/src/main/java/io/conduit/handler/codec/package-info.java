/**
 * Codec base classes (byte-to-message and message-to-message decoders, encoders) and frame decoders:
 * length-field, line-based, delimiter-based and fixed-length, each with a maximum frame length.
 */
@Export
@Version("0.1.0")
package io.conduit.handler.codec;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
