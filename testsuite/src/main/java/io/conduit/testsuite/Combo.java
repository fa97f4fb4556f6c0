package io.conduit.testsuite;

import io.conduit.transport.Availability;
import io.conduit.transport.Transport;
import io.conduit.transport.spi.TransportProvider;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One named permutation of a conformance test: the transport of the server side, the transport of the
 * client side, and the allocator both sides read with. Its {@link #toString()} is the display name.
 *
 * @param server provider of the accepting / receiving side
 * @param client provider of the connecting / sending side
 * @param allocator allocator of both sides
 */
public record Combo(TransportProvider server, TransportProvider client, AllocatorKind allocator) {

    public Combo {
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(allocator, "allocator");
    }

    /** Every server × client × allocator combination of {@code providers}, in that nesting order. */
    public static List<Combo> all(List<TransportProvider> providers, List<AllocatorKind> allocators) {
        List<Combo> list = new ArrayList<>();
        for (TransportProvider s : providers) {
            for (TransportProvider c : providers) {
                for (AllocatorKind a : allocators) {
                    list.add(new Combo(s, c, a));
                }
            }
        }
        return list;
    }

    /** @return the first provider of the two that is unavailable on this JVM, or {@code null} */
    public TransportProvider unavailableProvider() {
        if (!server.availability().isAvailable()) {
            return server;
        }
        return client.availability().isAvailable() ? null : client;
    }

    public Transport serverTransport() {
        return server.transport();
    }

    public Transport clientTransport() {
        return client.transport();
    }

    /** @return the availability of the unavailable provider, or available */
    public Availability availability() {
        TransportProvider p = unavailableProvider();
        return p == null ? Availability.available() : p.availability();
    }

    @Override
    public String toString() {
        return server.name() + " server <- " + client.name() + " client, " + allocator.name().toLowerCase().replace('_', '-');
    }
}
