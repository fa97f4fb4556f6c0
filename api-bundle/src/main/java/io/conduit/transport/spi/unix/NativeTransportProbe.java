package io.conduit.transport.spi.unix;

import io.conduit.transport.Availability;
import io.conduit.transport.spi.IoTransportSupport;

import java.util.Locale;
import java.util.function.UnaryOperator;

/**
 * SPI for transport implementers: the steps every native transport's one-time availability probe shares
 * (unavailability is a value). {@link #disabledByProperty} answers {@code conduit.noNative};
 * {@link #probeLinux} runs the whole probe of a Linux-only transport: the property, the operating system, then the
 * transport's own step, which loads its library (with {@link io.conduit.transport.spi.NativeLibraryLoader}, from
 * the transport's own class so the library binds to its class loader) and creates real kernel objects.
 *
 * <p>Nothing here loads a library or keeps state; every method is pure apart from the step it runs. Any thread.
 *
 * @since 0.5.0
 */
public final class NativeTransportProbe {

    /** The system property that disables every native transport ({@code true}); {@code false} by default. */
    public static final String NO_NATIVE_PROPERTY = "conduit.noNative";

    private NativeTransportProbe() {
    }

    /**
     * A transport's own probe step: load the library, create and close real kernel objects.
     */
    @FunctionalInterface
    public interface Step {
        /**
         * @throws Exception when the transport cannot run here (the exception becomes the cause)
         */
        void run() throws Exception;
    }

    /**
     * @param transport  the transport's name, e.g. {@code "epoll"}, for the message
     * @param properties system-property lookup
     * @return an unavailable {@link Availability} when {@value #NO_NATIVE_PROPERTY} is {@code true} (the cause
     *         names the property and how to undo it) or malformed (the cause is the
     *         {@link IllegalArgumentException} naming it); {@code null} when native transports may be probed
     */
    public static Availability disabledByProperty(String transport, UnaryOperator<String> properties) {
        boolean noNative;
        try {
            noNative = IoTransportSupport.booleanProperty(properties, NO_NATIVE_PROPERTY, false);
        } catch (IllegalArgumentException e) {
            return Availability.unavailable(e); // malformed: not probed, as the selection does not probe it either
        }
        if (noNative) {
            return Availability.unavailable(new UnsupportedOperationException(transport + " is disabled by the"
                    + " system property " + NO_NATIVE_PROPERTY + "=true (no native library was loaded); remove it or"
                    + " set it to false to use native transports"));
        }
        return null;
    }

    /**
     * The probe of a Linux-only native transport: {@link #disabledByProperty}; then, unless {@code os.name} starts
     * with {@code Linux}, unavailable with {@code "<transport> needs Linux; this is <os>"}; then {@code step}.
     *
     * @param step loads the library and creates kernel objects; an {@link Exception} or {@link LinkageError} it
     *             throws (e.g. the {@link UnsatisfiedLinkError} of a missing library, with every load attempt
     *             suppressed in it) becomes the cause
     * @return available when {@code step} returned, else unavailable with the cause
     */
    public static Availability probeLinux(String transport, UnaryOperator<String> properties, Step step) {
        Availability disabled = disabledByProperty(transport, properties);
        if (disabled != null) {
            return disabled;
        }
        String os = String.valueOf(properties.apply("os.name"));
        if (!os.toLowerCase(Locale.ROOT).startsWith("linux")) {
            return Availability.unavailable(new UnsupportedOperationException(transport + " needs Linux; this is "
                    + os));
        }
        try {
            step.run();
            return Availability.available();
        } catch (Exception | LinkageError e) {
            return Availability.unavailable(e);
        }
    }
}
