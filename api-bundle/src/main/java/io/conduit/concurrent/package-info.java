/**
 * Event executors, event loops and their groups, and futures/promises that interoperate with {@link java.util.concurrent.CompletionStage}.
 */
@Export
@Version("0.2.0")
package io.conduit.concurrent;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
