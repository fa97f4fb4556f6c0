/**
 * A tiny application module for {@code JpmsModulePathTest}: compiled and run by that test on the module path
 * only (no class path), beside the Conduit jars.
 */
module io.conduit.itest.jpms {
    requires io.conduit.api;
    requires io.conduit.handler;

    uses io.conduit.transport.spi.TransportProvider;
}
