package io.conduit.transport;

import java.util.List;

import io.conduit.internal.transport.TransportRegistry;
import io.conduit.transport.spi.TransportProvider;

/**
 * The registry of transport providers and the transport selection of docs/configuration.md. Static facade; thread-safe.
 *
 * <p><b>Where providers come from.</b> On first use, {@link java.util.ServiceLoader} finds
 * {@link TransportProvider}s through the API's own class loader and through the calling thread's context
 * class loader (one provider per name; the first found wins). Inside OSGi, the API bundle's service tracker
 * adds and removes provider services with {@link #register(TransportProvider)} and
 * {@link #unregister(TransportProvider)}; a registered provider takes precedence over a discovered one of the
 * same name.
 *
 * <p><b>Selection</b> (system properties, read again on every call and compared with the snapshot the current
 * selection was made from):
 * <ul>
 * <li>{@code conduit.transport} = {@code auto} (default: native providers by descending
 *     {@link TransportProvider#ranking() ranking}, then the others by ranking) or an ordered comma-separated
 *     list such as {@code epoll,nio} (whitespace ignored). Listed transports come first, in list order, then
 *     every other provider in {@code auto} order. An unknown name is skipped with a warning, or fails the
 *     selection in strict mode.</li>
 * <li>{@code conduit.transport.strict=true}: when the first listed transport is unavailable, selection fails
 *     with an {@link UnavailableTransportException} whose cause is that transport's unavailability cause; with
 *     {@code auto}, selection fails when native providers are registered but none is available. Otherwise the
 *     next available transport is used and ONE warning per distinct fallback is logged on the
 *     {@link System.Logger} {@code io.conduit.transport}, naming the preferred transport, the chosen one and the
 *     cause.</li>
 * <li>{@code conduit.noNative=true}: native providers are reported unavailable with a cause naming the
 *     property, without being probed.</li>
 * <li>Boolean properties accept {@code true}/{@code false} in any case; anything else fails the selection with
 *     a message naming the property, the value and the allowed values.</li>
 * </ul>
 * A run-time preference set with {@link #setPreference(String)} (Configuration Admin, Gogo {@code use}) takes
 * the place of {@code conduit.transport}.
 *
 * @see Diagnostics for a printable account of the selection
 */
public final class Transports {

    private Transports() {
    }

    private static TransportRegistry registry() {
        return TransportRegistry.global();
    }

    /**
     * The platform's metrics now: every transport that made an event loop group, its live event loops, the started
     * managed endpoints and the pooled allocator (see {@code docs/metrics.md}). Any thread; it walks the open
     * channels once, so call it at a scrape interval, not per operation.
     *
     * @return an immutable snapshot
     */
    public static io.conduit.metrics.MetricsSnapshot metrics() {
        return io.conduit.internal.metrics.PlatformMetrics.snapshot();
    }

    /**
     * @return the transport selected now
     * @throws UnavailableTransportException when none can be selected; its message explains why (no provider
     *         registered, strict preference unavailable, malformed property, nothing available) and its cause is
     *         the preferred transport's unavailability cause (every load attempt attached) or the configuration
     *         error; the other providers' causes are suppressed exceptions
     */
    public static Transport selected() {
        return registry().selected();
    }

    /**
     * @return an account of the current selection: the selected transport or none, the preference and its
     *         source, and every provider's availability and why it was or was not chosen; never throws for
     *         configuration or availability problems
     */
    public static TransportSelection selection() {
        return registry().selection();
    }

    /** @return the registered providers, one per name, native ones first, each group by descending ranking */
    public static List<TransportProvider> providers() {
        return registry().providers();
    }

    /**
     * @param name a transport name such as {@code "nio"}
     * @return that transport, when it is registered and available (also when it is not the selected one)
     * @throws UnavailableTransportException when no provider has that name (the message lists the registered
     *         ones) or it is unavailable (the cause is its unavailability cause; under {@code conduit.noNative}
     *         a native transport's cause names that property)
     */
    public static Transport get(String name) {
        return registry().get(name);
    }

    /**
     * Overrides {@code conduit.transport} at run time; listeners are told when the selected transport changes.
     * Called by the Configuration Admin binding (PID {@code io.conduit.transport}, property {@code transport})
     * and by tools.
     *
     * @param preference {@code auto} or an ordered comma-separated list of names, as for the system property;
     *        {@code null} returns to the system property
     * @throws IllegalArgumentException when {@code preference} is malformed (empty, an empty entry, invalid
     *         characters, or {@code auto} mixed with names); names need not be registered yet
     */
    public static void setPreference(String preference) {
        registry().setPreference(preference);
    }

    /** @return the run-time preference, or {@code null} when {@code conduit.transport} applies */
    public static String preference() {
        return registry().preferenceOverride();
    }

    /**
     * Registers {@code listener} for changes of the selected transport (see {@link TransportChangeListener} for
     * the thread it is called on). Changes are detected when providers come or go, when the preference changes,
     * and when a call to this class notices that the system properties changed.
     */
    public static void addListener(TransportChangeListener listener) {
        registry().addListener(listener);
    }

    /** Removes a listener added with {@link #addListener}; unknown listeners are ignored. */
    public static void removeListener(TransportChangeListener listener) {
        registry().removeListener(listener);
    }

    /**
     * <b>SPI, for the OSGi runtime and tests:</b> adds a provider, e.g. when a transport bundle's
     * {@code TransportProvider} service appears. Selection is recomputed at once (the provider's availability is
     * probed on the calling thread) and listeners are told when the selected transport changes.
     *
     * @return {@code false} when this provider object is already registered
     */
    public static boolean register(TransportProvider provider) {
        return registry().register(provider);
    }

    /**
     * <b>SPI, for the OSGi runtime and tests:</b> removes a provider added with {@link #register}; providers found
     * by {@link java.util.ServiceLoader} cannot be removed.
     *
     * @return {@code false} when {@code provider} was not registered
     */
    public static boolean unregister(TransportProvider provider) {
        return registry().unregister(provider);
    }
}
