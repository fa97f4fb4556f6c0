/**
 * A handler that logs pipeline events and hex dumps of buffers through {@link java.lang.System.Logger}.
 */
@Export
@Version("0.1.0")
package io.conduit.handler.logging;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
