package io.conduit.gateway.internal.status;

import java.util.List;

import io.conduit.gateway.services.GatewayServices;

/**
 * What one configured gateway component (an echo service or a relay) is doing, registered as an OSGi service once
 * every endpoint of the component has been bound or has failed. The launcher's banner and the {@code conduit:}
 * shell commands read it; its service properties carry the same facts as strings so a reader needs no class of
 * this bundle:
 *
 * <ul>
 *   <li>{@value #PROP_NAME}: configuration name (e.g. {@code io.conduit.gateway.echo-default.cfg});</li>
 *   <li>{@value #PROP_PID}: the Configuration Admin PID of the configuration (e.g.
 *       {@code io.conduit.gateway.echo~default} or {@code io.conduit.gateway.echo.<generated>});</li>
 *   <li>{@value #PROP_KIND}: {@code echo} or {@code relay}; {@code file} for a file of the configuration directory
 *       that nothing applies (published by {@code ConfigurationFiles}, with its reason as the one failure; such a
 *       file named like an echo or relay configuration has that kind);</li>
 *   <li>{@value #PROP_LISTENING}: {@code String[]} of bound endpoints, e.g. {@code tcp://127.0.0.1:7007}, for a relay
 *       followed by {@code " -> "} and the upstream;</li>
 *   <li>{@value #PROP_FAILURES}: {@code String[]}, one line per problem (bad configuration, bind failure).</li>
 * </ul>
 * The properties are set when the status is published and when an endpoint that waited for a capable transport is
 * bound; what every endpoint does at the time of a call (it may have lost its transport since) is {@link #now()}.
 *
 * <p>Thread-safe; what {@link #bindings()}, {@link #failures()} and {@link #now()} return changes as endpoints move
 * between transports.
 */
public interface GatewayStatus {

    /** Service property: configuration name. */
    String PROP_NAME = GatewayServices.STATUS_NAME;
    /** Service property: configuration PID. */
    String PROP_PID = GatewayServices.STATUS_PID;
    /** Service property: component kind. */
    String PROP_KIND = GatewayServices.STATUS_KIND;
    /** Service property: bound endpoints. */
    String PROP_LISTENING = GatewayServices.STATUS_LISTENING;
    /** Service property: problems. */
    String PROP_FAILURES = GatewayServices.STATUS_FAILURES;

    /** @return the configuration name */
    String name();

    /** @return the configuration's PID, or the configuration name when it has none */
    String pid();

    /** @return {@code echo}, {@code relay} or {@code file} */
    String kind();

    /** @return the bound endpoints, in configuration order */
    List<String> listening();

    /**
     * @return the endpoints listening at the time of the call, each followed by the transport it is bound on, e.g.
     *         {@code tcp://127.0.0.1:7007 [epoll]}; a listener moves to another transport on a swap, and one that has
     *         no transport now is in {@link #failures()} instead
     */
    List<String> bindings();

    /** @return one line per problem; empty when everything is listening */
    List<String> failures();

    /**
     * @return {@link #bindings()} and {@link #failures()} of one moment: every endpoint is in exactly one of them (an
     *         endpoint that has no listener or socket now, e.g. because no transport is selected, is a failure and
     *         not a binding)
     */
    default Now now() {
        return new Now(bindings(), failures());
    }

    /**
     * What a component is doing at one moment.
     *
     * @param bindings the endpoints listening now, each with its transport (see {@link #bindings()})
     * @param failures one line per problem, including each endpoint that is not listening now
     */
    record Now(List<String> bindings, List<String> failures) {
        /** Copies both lists. */
        public Now {
            bindings = List.copyOf(bindings);
            failures = List.copyOf(failures);
        }
    }
}
