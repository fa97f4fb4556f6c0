package io.conduit.gateway.internal;

import java.util.concurrent.CompletionStage;

import java.net.UnixDomainSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.conduit.channel.Channel;
import io.conduit.concurrent.Future;

/**
 * The listening channels of one gateway component: binds its endpoints, remembers what is listening and what failed,
 * and closes everything (removing Unix socket files) on {@link #close()}. Stream listeners are
 * {@code ManagedServer}s and UDP endpoints {@code ManagedDatagramEndpoint}s (made by {@link BootstrapNetwork}), so a
 * transport swap re-binds them.
 *
 * <p>Thread-safe: {@code bind}/{@code close} may be called from any thread; the lists are guarded by {@code this}.
 */
final class Listeners implements AutoCloseable {

    /** How one endpoint is bound: a call of {@link Network#listen} or {@link Network#bindDatagram}. */
    @FunctionalInterface
    interface Binder {
        CompletionStage<Network.Bound> bind(GatewayUri endpoint);
    }

    private static final System.Logger LOG = System.getLogger("io.conduit.gateway");

    private final String component;
    /** Bound listeners and channels, index for index with {@link #listening}; guarded by this. */
    private final List<Network.Bound> channels = new ArrayList<>();
    /** Bound endpoints as shown to users; guarded by this. */
    private final List<String> listening = new ArrayList<>();
    /** One line per problem; guarded by this. */
    private final List<String> failures = new ArrayList<>();
    /** Guarded by this. */
    private boolean closed;

    /** @param component e.g. {@code "echo io.conduit.gateway.echo-default.cfg"}, the prefix of log lines */
    Listeners(String component) {
        this.component = component;
    }

    /**
     * Binds each endpoint in turn; a failure is logged as one WARNING line and recorded, and never stops the other
     * endpoints. Completes when every endpoint is bound or has failed.
     *
     * @param endpoints what to bind
     * @param describe  how a bound endpoint is shown (e.g. with {@code " -> upstream"})
     * @param binder    binds one endpoint
     * @return completes (never exceptionally) after the last endpoint's outcome is recorded
     */
    CompletableFuture<Void> bindAll(List<GatewayUri> endpoints, java.util.function.Function<String, String> describe,
            Binder binder) {
        CompletableFuture<Void> all = CompletableFuture.completedFuture(null);
        for (GatewayUri endpoint : endpoints) {
            all = all.thenCompose(v -> bindOne(endpoint, describe, binder));
        }
        return all;
    }

    private CompletableFuture<Void> bindOne(GatewayUri endpoint, java.util.function.Function<String, String> describe,
            Binder binder) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        CompletionStage<Network.Bound> f;
        try {
            if (endpoint.kind() == GatewayUri.Kind.UNIX && !endpoint.isAbstract()) {
                UnixSocketFiles.prepareBind(endpoint.path());
            }
            f = binder.bind(endpoint);
        } catch (Exception | LinkageError e) {
            fail("cannot listen on " + endpoint + ": " + describe(e));
            done.complete(null);
            return done;
        }
        f.whenComplete((ch, failure) -> {
            try {
                if (failure == null) {
                    boolean keep;
                    synchronized (this) {
                        keep = !closed;
                        if (keep) {
                            channels.add(ch);
                            listening.add(describe.apply(endpoint.describeBound(ch.localAddress())));
                        }
                    }
                    if (!keep) {
                        closeQuietly(ch);
                    }
                } else {
                    Throwable cause = failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
                            ? failure.getCause() : failure;
                    fail("cannot listen on " + endpoint + ": " + describe(cause));
                }
            } finally {
                done.complete(null);
            }
        });
        return done;
    }

    private static void closeQuietly(Network.Bound b) {
        try {
            b.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** @return e.g. {@code BindException: Address already in use} */
    static String describe(Throwable t) {
        String m = t.getMessage();
        return m == null ? t.getClass().getSimpleName() : t.getClass().getSimpleName() + ": " + m;
    }

    /** Records a configuration problem (one WARNING line). */
    void fail(String problem) {
        LOG.log(System.Logger.Level.WARNING, component + ": " + problem);
        synchronized (this) {
            failures.add(problem);
        }
    }

    synchronized List<String> listening() {
        return Collections.unmodifiableList(new ArrayList<>(listening));
    }

    /**
     * @return each bound endpoint as in {@link #listening()}, followed by the transport it is bound on now, e.g.
     *         {@code tcp://127.0.0.1:7007 [epoll]} ({@code [closed]} when its listener or socket has closed
     *         meanwhile); every kind of endpoint moves on a transport swap
     */
    List<String> bindings() {
        List<String> descriptions;
        List<Network.Bound> bound;
        synchronized (this) {
            descriptions = new ArrayList<>(listening);
            bound = new ArrayList<>(channels);
        }
        List<String> out = new ArrayList<>(descriptions.size());
        for (int i = 0; i < descriptions.size(); i++) {
            String t = bound.get(i).transportName(); // outside the lock: ManagedServer takes its own
            out.add(descriptions.get(i) + " [" + (t != null ? t : "closed") + "]");
        }
        return Collections.unmodifiableList(out);
    }

    synchronized List<String> failures() {
        return Collections.unmodifiableList(new ArrayList<>(failures));
    }

    @Override
    public void close() {
        List<Network.Bound> toClose;
        synchronized (this) {
            closed = true;
            toClose = new ArrayList<>(channels);
            channels.clear();
            listening.clear();
        }
        boolean interrupted = false;
        for (Network.Bound ch : toClose) {
            try {
                ch.close();
            } catch (InterruptedException e) {
                interrupted = true;
            }
            if (ch.localAddress() instanceof UnixDomainSocketAddress unix) {
                UnixSocketFiles.remove(unix.getPath());
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
