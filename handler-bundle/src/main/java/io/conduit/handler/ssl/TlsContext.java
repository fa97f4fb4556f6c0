package io.conduit.handler.ssl;

import java.net.Socket;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Date;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.WeakHashMap;

import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509ExtendedTrustManager;

import io.conduit.handler.logging.RateLimitedLog;

/**
 * An immutable TLS configuration for one side of a connection: the JDK {@link SSLContext} with its key (a
 * certificate chain and private key) and trust anchors, plus the protocols, cipher suites, client authentication,
 * ALPN protocols, handshake timeout and host name verification of every connection made from it. Build one with
 * {@link #forServer(Path, Path, char[])}, {@link #forServer(Path, char[])} or {@link #forClient()}; each channel then
 * gets its own {@link TlsHandler} from {@link #newServerHandler()} or {@link #newClientHandler(String, int)}.
 *
 * <p>Defaults: TLS 1.3 and 1.2; the JVM's default cipher suites for those; no client authentication; no ALPN;
 * a 10 s handshake timeout; a client verifies the server's host name (endpoint identification {@code HTTPS}) and sends
 * it as SNI; a client without {@link Builder#trust(Path)} trusts the JVM's default CA certificates.
 *
 * <p>Sessions are cached per context: a client that connects again to the same host and port with the same context
 * resumes its session when the server agrees ({@link TlsHandshakeResult#resumed()}).
 *
 * <p>Thread-safe; one context serves any number of channels on any event loop.
 */
public final class TlsContext {

    /** The protocols used unless {@link Builder#protocols} says otherwise. */
    public static final List<String> DEFAULT_PROTOCOLS = List.of("TLSv1.3", "TLSv1.2");

    /** The handshake timeout unless {@link Builder#handshakeTimeout} says otherwise. */
    public static final Duration DEFAULT_HANDSHAKE_TIMEOUT = Duration.ofSeconds(10);

    private static final System.Logger LOG = System.getLogger(TlsHandler.class.getName());

    private final boolean client;
    private final SSLContext sslContext;
    private final List<String> protocols;
    private final List<String> cipherSuites;
    private final ClientAuth clientAuth;
    private final List<String> applicationProtocols;
    private final long handshakeTimeoutMillis;
    private final boolean hostnameVerification;
    private final List<X509Certificate> certificateChain;
    /** One line per kind of failed connection (bad input, failed handshakes), for every channel of this context. */
    private final RateLimitedLog failureLog;
    /**
     * Engines whose handshake exchanged certificates (a full handshake); an engine missing here when its handshake
     * completes resumed a session. Filled by the key and trust managers during the handshake, on the engine's event
     * loop; emptied by {@link #fullHandshake}. Weak keys: an engine that is never asked about does not stay.
     * Guarded by its own lock (a synchronized map).
     */
    private final Set<SSLEngine> fullHandshakes = Collections.newSetFromMap(Collections.synchronizedMap(new WeakHashMap<>()));

    private TlsContext(Builder b, SSLContext sslContext) {
        this.client = b.client;
        this.sslContext = sslContext;
        this.protocols = b.protocols;
        this.cipherSuites = b.cipherSuites;
        this.clientAuth = b.clientAuth;
        this.applicationProtocols = b.applicationProtocols;
        this.handshakeTimeoutMillis = b.handshakeTimeout.toMillis();
        this.hostnameVerification = b.hostnameVerification;
        this.certificateChain = b.chain == null ? List.of() : List.copyOf(b.chain);
        this.failureLog = b.failureLog != null ? b.failureLog : new RateLimitedLog(LOG, System.Logger.Level.WARNING);
    }

    /**
     * A server context from PEM files.
     *
     * @param certificateChain PEM file with the server's certificate first, then its intermediate CA certificates
     * @param privateKey       PEM file with the matching private key: PKCS#8, PKCS#1 or SEC1, encrypted or not
     * @param keyPassword      the key's password, or null when it is not encrypted
     */
    public static Builder forServer(Path certificateChain, Path privateKey, char[] keyPassword) {
        Builder b = new Builder(false);
        b.certificate(certificateChain, privateKey, keyPassword);
        return b;
    }

    /**
     * A server context from a PKCS#12 keystore holding the private key and its certificate chain.
     *
     * @param pkcs12   the keystore file ({@code .p12}, {@code .pfx})
     * @param password its password (for the store and the key)
     */
    public static Builder forServer(Path pkcs12, char[] password) {
        Builder b = new Builder(false);
        b.keyStore(pkcs12, password);
        return b;
    }

    /** A client context; add {@link Builder#certificate} for mutual TLS and {@link Builder#trust} for a private CA. */
    public static Builder forClient() {
        return new Builder(true);
    }

    /** @return whether this is a client context */
    public boolean isClient() {
        return client;
    }

    /** @return the enabled protocols, in preference order */
    public List<String> protocols() {
        return protocols;
    }

    /** @return the enabled cipher suites, or an empty list for the JVM's defaults */
    public List<String> cipherSuites() {
        return cipherSuites;
    }

    /** @return whether a server asks for client certificates ({@link ClientAuth#NONE} for a client) */
    public ClientAuth clientAuth() {
        return clientAuth;
    }

    /** @return the ALPN protocols in preference order; empty when ALPN is off */
    public List<String> applicationProtocols() {
        return applicationProtocols;
    }

    /** @return how long a handshake may take, in milliseconds */
    public long handshakeTimeoutMillis() {
        return handshakeTimeoutMillis;
    }

    /** @return whether a client verifies the server's host name */
    public boolean hostnameVerification() {
        return hostnameVerification;
    }

    /** @return this side's certificate chain, its own certificate first; empty for a client without one */
    public List<X509Certificate> certificateChain() {
        return certificateChain;
    }

    /** @return the JDK context the engines come from */
    public SSLContext sslContext() {
        return sslContext;
    }

    /** @return a handler for one accepted channel */
    public TlsHandler newServerHandler() {
        if (client) {
            throw new IllegalStateException("a client context makes client handlers: use newClientHandler(host, port)");
        }
        return new TlsHandler(this, null);
    }

    /**
     * @param host the server's host name (sent as SNI unless it is an IP address, and verified against its certificate
     *             unless {@link Builder#hostnameVerification} is off); may be null only without host name verification
     * @param port the server's port (with the host, the key of the session cache), or -1
     * @return a handler for one connecting channel
     */
    public TlsHandler newClientHandler(String host, int port) {
        if (!client) {
            throw new IllegalStateException("a server context makes server handlers: use newServerHandler()");
        }
        if (host == null && hostnameVerification) {
            throw new IllegalArgumentException("host name verification needs the server's host name; give it, or turn"
                    + " hostnameVerification off");
        }
        return new TlsHandler(this, new TlsHandler.Peer(host, port));
    }

    RateLimitedLog failureLog() {
        return failureLog;
    }

    /** A configured engine for one connection; {@code host} null on a server. */
    SSLEngine newEngine(String host, int port) {
        SSLEngine engine = host == null ? sslContext.createSSLEngine() : sslContext.createSSLEngine(host, port);
        engine.setUseClientMode(client);
        SSLParameters p = engine.getSSLParameters();
        p.setProtocols(protocols.toArray(String[]::new));
        if (!cipherSuites.isEmpty()) {
            p.setCipherSuites(cipherSuites.toArray(String[]::new));
        }
        if (!applicationProtocols.isEmpty()) {
            p.setApplicationProtocols(applicationProtocols.toArray(String[]::new));
        }
        if (client) {
            if (host != null && !isIpLiteral(host)) {
                p.setServerNames(List.of(new SNIHostName(host)));
            }
            if (hostnameVerification) {
                p.setEndpointIdentificationAlgorithm("HTTPS");
            }
        } else {
            switch (clientAuth) {
                case REQUIRED -> p.setNeedClientAuth(true);
                case OPTIONAL -> p.setWantClientAuth(true);
                default -> p.setNeedClientAuth(false);
            }
        }
        engine.setSSLParameters(p);
        return engine;
    }

    /** @return whether {@code engine}'s completed handshake exchanged certificates; forgets the engine */
    boolean fullHandshake(SSLEngine engine) {
        return fullHandshakes.remove(engine);
    }

    static boolean isIpLiteral(String host) {
        return host.indexOf(':') >= 0 || host.chars().allMatch(c -> c == '.' || (c >= '0' && c <= '9'));
    }

    @Override
    public String toString() {
        return "TlsContext(" + (client ? "client" : "server")
                + (certificateChain.isEmpty() ? "" : ", " + certificateChain.get(0).getSubjectX500Principal().getName())
                + ", " + protocols + (applicationProtocols.isEmpty() ? "" : ", alpn " + applicationProtocols)
                + (client ? "" : ", client auth " + clientAuth) + ")";
    }

    /**
     * Collects a context's settings; {@link #build()} reads and checks the files. Not thread-safe; a builder may build
     * several contexts (each reads the files anew).
     */
    public static final class Builder {
        private final boolean client;
        private Path certFile;
        private Path keyFile;
        private Path pkcs12File;
        private char[] password;
        private Path trustFile;
        private List<String> protocols = DEFAULT_PROTOCOLS;
        private List<String> cipherSuites = List.of();
        private ClientAuth clientAuth = ClientAuth.NONE;
        private List<String> applicationProtocols = List.of();
        private Duration handshakeTimeout = DEFAULT_HANDSHAKE_TIMEOUT;
        private boolean hostnameVerification = true;
        private RateLimitedLog failureLog;
        private List<X509Certificate> chain;

        private Builder(boolean client) {
            this.client = client;
        }

        /**
         * This side's certificate chain and private key from PEM files (for a client: mutual TLS).
         *
         * @param keyPassword the key's password, or null when it is not encrypted
         */
        public Builder certificate(Path certificateChain, Path privateKey, char[] keyPassword) {
            this.certFile = Objects.requireNonNull(certificateChain, "certificateChain");
            this.keyFile = Objects.requireNonNull(privateKey, "privateKey");
            this.password = keyPassword == null ? null : keyPassword.clone();
            this.pkcs12File = null;
            return this;
        }

        /** This side's private key and certificate chain from a PKCS#12 keystore (for a client: mutual TLS). */
        public Builder keyStore(Path pkcs12, char[] storePassword) {
            this.pkcs12File = Objects.requireNonNull(pkcs12, "pkcs12");
            this.password = storePassword == null ? null : storePassword.clone();
            this.certFile = null;
            this.keyFile = null;
            return this;
        }

        /**
         * The CA certificates (PEM) that a peer's certificate must chain to: a client checks the server with them
         * (instead of the JVM's defaults), a server checks client certificates with them.
         */
        public Builder trust(Path caCertificates) {
            this.trustFile = Objects.requireNonNull(caCertificates, "caCertificates");
            return this;
        }

        /** The protocols, e.g. {@code TLSv1.3}; default {@link TlsContext#DEFAULT_PROTOCOLS}. */
        public Builder protocols(String... protocols) {
            this.protocols = nonEmpty(protocols, "protocols");
            return this;
        }

        /** The cipher suites, JSSE names (e.g. {@code TLS_AES_128_GCM_SHA256}); default the JVM's. */
        public Builder cipherSuites(String... cipherSuites) {
            this.cipherSuites = nonEmpty(cipherSuites, "cipherSuites");
            return this;
        }

        /** Whether a server asks for client certificates; default {@link ClientAuth#NONE}. */
        public Builder clientAuth(ClientAuth clientAuth) {
            this.clientAuth = Objects.requireNonNull(clientAuth, "clientAuth");
            return this;
        }

        /**
         * The ALPN protocols in preference order, e.g. {@code h2, http/1.1}. A server picks the first of its own that
         * the client offers and fails the handshake (alert {@code no_application_protocol}) when none matches.
         */
        public Builder alpn(String... protocols) {
            this.applicationProtocols = nonEmpty(protocols, "alpn");
            return this;
        }

        /** How long a handshake may take before the channel is closed; default 10 s; &gt; 0. */
        public Builder handshakeTimeout(Duration timeout) {
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("handshake timeout must be > 0: " + timeout);
            }
            this.handshakeTimeout = timeout;
            return this;
        }

        /** Whether a client checks that the server's certificate names the host it connects to; default on. */
        public Builder hostnameVerification(boolean on) {
            this.hostnameVerification = on;
            return this;
        }

        /** Where the context's channels report bad input and failed handshakes (one rate-limited line each). */
        public Builder failureLog(RateLimitedLog log) {
            this.failureLog = Objects.requireNonNull(log, "log");
            return this;
        }

        /**
         * Reads the files, checks them and builds the context.
         *
         * @throws TlsConfigException naming the file and what to do: a missing or unreadable file, a wrong password,
         *                            a key that does not match the certificate, a certificate expired or not yet
         *                            valid, an unsupported protocol or cipher suite, client authentication without
         *                            trust anchors
         */
        public TlsContext build() throws TlsConfigException {
            if (!client && certFile == null && pkcs12File == null) {
                throw new TlsConfigException(null, "a TLS server needs a certificate and private key", null);
            }
            if (!client && clientAuth != ClientAuth.NONE && trustFile == null) {
                throw new TlsConfigException(null, "client authentication " + clientAuth + " needs the CA certificates"
                        + " that client certificates chain to: set trust(caFile)", null);
            }
            PrivateKey key = null;
            List<X509Certificate> chain = null;
            Path chainFile = null;
            Date now = new Date();
            if (certFile != null) {
                chain = PemFiles.certificates(certFile, "certificate chain");
                key = PemFiles.privateKey(keyFile, password);
                PemFiles.checkKeyMatches(key, chain.get(0), keyFile, certFile);
                chainFile = certFile;
            } else if (pkcs12File != null) {
                PemFiles.KeyAndChain kc = PemFiles.pkcs12(pkcs12File, password);
                key = kc.key();
                chain = kc.chain();
                chainFile = pkcs12File;
            }
            if (chain != null) {
                PemFiles.checkValidity(chain, chainFile, now);
            }
            List<X509Certificate> anchors = null;
            if (trustFile != null) {
                anchors = PemFiles.certificates(trustFile, "CA certificates (trust)");
                PemFiles.checkValidity(anchors, trustFile, now);
            }
            this.chain = chain;
            SSLContext ssl;
            TlsContext[] self = new TlsContext[1];
            try {
                KeyManager[] kms = null;
                if (key != null) {
                    KeyStore ks = KeyStore.getInstance("PKCS12");
                    ks.load(null, null);
                    char[] pw = "in-memory".toCharArray(); // protects nothing: the store never leaves memory
                    ks.setKeyEntry("key", key, pw, chain.toArray(X509Certificate[]::new));
                    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                    kmf.init(ks, pw);
                    kms = new KeyManager[] {new RecordingKeyManager((X509ExtendedKeyManager) kmf.getKeyManagers()[0], self)};
                }
                TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                if (anchors != null) {
                    KeyStore ts = KeyStore.getInstance("PKCS12");
                    ts.load(null, null);
                    for (int i = 0; i < anchors.size(); i++) {
                        ts.setCertificateEntry("ca" + i, anchors.get(i));
                    }
                    tmf.init(ts);
                } else {
                    tmf.init((KeyStore) null);
                }
                TrustManager[] tms = {new RecordingTrustManager((X509ExtendedTrustManager) tmf.getTrustManagers()[0], self)};
                ssl = SSLContext.getInstance("TLS");
                ssl.init(kms, tms, null);
            } catch (GeneralSecurityException | java.io.IOException e) {
                throw new TlsConfigException(null, "cannot set up TLS with " + describe() + ": " + e.getMessage(), e);
            }
            SSLParameters supported = ssl.getSupportedSSLParameters();
            checkSupported(protocols, supported.getProtocols(), "protocol");
            checkSupported(cipherSuites, supported.getCipherSuites(), "cipher suite");
            TlsContext context = new TlsContext(this, ssl);
            self[0] = context;
            return context;
        }

        /** @return the files {@link #build()} reads: certificate chain, key or keystore, trust anchors */
        List<Path> files() {
            List<Path> files = new ArrayList<>();
            for (Path p : new Path[] {certFile, keyFile, pkcs12File, trustFile}) {
                if (p != null) {
                    files.add(p);
                }
            }
            return files;
        }

        /** @return whether {@link #failureLog} was set */
        boolean hasFailureLog() {
            return failureLog != null;
        }

        private String describe() {
            return certFile != null ? certFile + " and " + keyFile : pkcs12File != null ? pkcs12File.toString() : "the JVM's defaults";
        }

        private static void checkSupported(List<String> wanted, String[] supported, String what)
                throws TlsConfigException {
            List<String> known = Arrays.asList(supported);
            List<String> unknown = new ArrayList<>();
            for (String w : wanted) {
                if (!known.contains(w)) {
                    unknown.add(w);
                }
            }
            if (!unknown.isEmpty()) {
                throw new TlsConfigException(null, what + (unknown.size() > 1 ? "s " : " ") + unknown + " not supported by"
                        + " this JVM; use some of " + known, null);
            }
        }

        private static List<String> nonEmpty(String[] values, String what) {
            List<String> list = List.of(values);
            if (list.isEmpty()) {
                throw new IllegalArgumentException(what + " must not be empty");
            }
            return list;
        }
    }

    /** Marks an engine whose server chose a certificate: a full handshake. */
    private static final class RecordingKeyManager extends X509ExtendedKeyManager {
        private final X509ExtendedKeyManager delegate;
        private final TlsContext[] context;

        RecordingKeyManager(X509ExtendedKeyManager delegate, TlsContext[] context) {
            this.delegate = delegate;
            this.context = context;
        }

        @Override
        public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
            String alias = delegate.chooseEngineServerAlias(keyType, issuers, engine);
            if (alias != null && engine != null) {
                context[0].fullHandshakes.add(engine);
            }
            return alias;
        }

        @Override
        public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
            return delegate.chooseEngineClientAlias(keyType, issuers, engine);
        }

        @Override
        public String[] getClientAliases(String keyType, Principal[] issuers) {
            return delegate.getClientAliases(keyType, issuers);
        }

        @Override
        public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
            return delegate.chooseClientAlias(keyType, issuers, socket);
        }

        @Override
        public String[] getServerAliases(String keyType, Principal[] issuers) {
            return delegate.getServerAliases(keyType, issuers);
        }

        @Override
        public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
            return delegate.chooseServerAlias(keyType, issuers, socket);
        }

        @Override
        public X509Certificate[] getCertificateChain(String alias) {
            return delegate.getCertificateChain(alias);
        }

        @Override
        public PrivateKey getPrivateKey(String alias) {
            return delegate.getPrivateKey(alias);
        }
    }

    /** Marks an engine that checked a peer's certificate: a full handshake. */
    private static final class RecordingTrustManager extends X509ExtendedTrustManager {
        private final X509ExtendedTrustManager delegate;
        private final TlsContext[] context;

        RecordingTrustManager(X509ExtendedTrustManager delegate, TlsContext[] context) {
            this.delegate = delegate;
            this.context = context;
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
                throws CertificateException {
            context[0].fullHandshakes.add(engine);
            delegate.checkClientTrusted(chain, authType, engine);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
                throws CertificateException {
            context[0].fullHandshakes.add(engine);
            delegate.checkServerTrusted(chain, authType, engine);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
                throws CertificateException {
            delegate.checkClientTrusted(chain, authType, socket);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
                throws CertificateException {
            delegate.checkServerTrusted(chain, authType, socket);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            delegate.checkClientTrusted(chain, authType);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            delegate.checkServerTrusted(chain, authType);
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return delegate.getAcceptedIssuers();
        }
    }
}
