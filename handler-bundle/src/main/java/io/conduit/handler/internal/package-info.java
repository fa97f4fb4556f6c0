/**
 * Helpers shared by the handler packages; not exported.
 */
package io.conduit.handler.internal;
