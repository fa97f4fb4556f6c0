package io.conduit.transport;

import io.conduit.internal.transport.DiagnosticsReport;
import io.conduit.internal.transport.TransportRegistry;

/**
 * The diagnostics report: Conduit version; JDK vendor, version and {@code java.home}; OS name, version and
 * architecture with the OSGi processor alias; the {@code sun.misc.Unsafe} status and why; the Conduit system
 * properties with their effective values; whether {@code --enable-native-access} is in effect (JDK 22+); every
 * transport provider with name, native or not, ranking, availability, and for an unavailable one its cause and
 * every load attempt (one indented line each); then the selected transport and why, or why none is.
 *
 * <p>Run it with {@code java -jar conduit-api-<version>.jar} (this class is the jar's {@code Main-Class}); add
 * transport jars with {@code java -cp conduit-api.jar:conduit-nio.jar io.conduit.transport.Diagnostics}.
 * Thread-safe.
 */
public final class Diagnostics {

    private Diagnostics() {
    }

    /**
     * @return the report for the providers of {@link Transports} and the current system properties; several lines
     *         of plain text ending with a line separator; probes providers that were not probed yet
     */
    public static String report() {
        return DiagnosticsReport.render(TransportRegistry.global());
    }

    /** Prints {@link #report()} to standard output. Arguments are ignored. */
    public static void main(String[] args) {
        System.out.print(report());
        System.out.flush();
    }
}
