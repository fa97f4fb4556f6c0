/**
 * Reference-counted byte buffers and their allocators (pooled and unpooled, direct memory).
 */
@Export
@Version("0.2.0")
package io.conduit.buffer;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
