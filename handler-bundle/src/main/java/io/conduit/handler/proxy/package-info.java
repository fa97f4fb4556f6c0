/**
 * The PROXY protocol (versions 1 and 2) of HAProxy: header decoder, encoder and the decoded message.
 */
@Export
@Version("0.1.0")
package io.conduit.handler.proxy;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
