package io.conduit.handler.ssl;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * A server's TLS contexts by server name (SNI): each accepted channel reads the client's ClientHello, takes the
 * context of the name it asks for, and the default context when it names none or one that is not mapped. A name is
 * either exact ({@code a.example}) or a wildcard for one label ({@code *.example} matches {@code a.example}, not
 * {@code a.b.example}); exact names win; case does not matter. Immutable and thread-safe.
 */
public final class SniMapping {

    private final TlsContext defaultContext;
    private final Map<String, TlsContext> contexts;

    private SniMapping(TlsContext defaultContext, Map<String, TlsContext> contexts) {
        this.defaultContext = defaultContext;
        this.contexts = Map.copyOf(contexts);
    }

    /** @param defaultContext the server context for clients that send no mapped name */
    public static Builder builder(TlsContext defaultContext) {
        return new Builder(defaultContext);
    }

    /** @return the context for {@code serverName} (null: the client sent none) */
    public TlsContext select(String serverName) {
        if (serverName == null) {
            return defaultContext;
        }
        String name = serverName.toLowerCase(Locale.ROOT);
        TlsContext c = contexts.get(name);
        if (c == null) {
            int dot = name.indexOf('.');
            if (dot > 0) {
                c = contexts.get("*" + name.substring(dot));
            }
        }
        return c != null ? c : defaultContext;
    }

    /** @return the context for clients that send no mapped name */
    public TlsContext defaultContext() {
        return defaultContext;
    }

    /** @return a handler for one accepted channel, choosing its context by the ClientHello's server name */
    public TlsHandler newServerHandler() {
        return new TlsHandler(this);
    }

    /** Collects the mapping. Not thread-safe. */
    public static final class Builder {
        private final TlsContext defaultContext;
        private final Map<String, TlsContext> contexts = new LinkedHashMap<>();

        private Builder(TlsContext defaultContext) {
            this.defaultContext = serverContext(defaultContext);
        }

        /**
         * @param serverName an exact name or {@code *.} followed by a domain
         * @param context    a server context
         */
        public Builder add(String serverName, TlsContext context) {
            Objects.requireNonNull(serverName, "serverName");
            if (serverName.isEmpty() || serverName.indexOf('*') > 0 || serverName.startsWith("*") && !serverName.startsWith("*.")) {
                throw new IllegalArgumentException("server name '" + serverName + "': use an exact name or *.domain");
            }
            contexts.put(serverName.toLowerCase(Locale.ROOT), serverContext(context));
            return this;
        }

        public SniMapping build() {
            return new SniMapping(defaultContext, contexts);
        }

        private static TlsContext serverContext(TlsContext c) {
            Objects.requireNonNull(c, "context");
            if (c.isClient()) {
                throw new IllegalArgumentException("SNI maps server contexts; got " + c);
            }
            return c;
        }
    }
}
