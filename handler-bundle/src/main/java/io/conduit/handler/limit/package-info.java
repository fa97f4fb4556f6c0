/**
 * Connection limits per listener and byte-rate limits per connection and per listener.
 */
@Export
@Version("0.2.0")
package io.conduit.handler.limit;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
