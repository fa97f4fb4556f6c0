package io.conduit.handler.ssl;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import io.conduit.handler.logging.RateLimitedLog;

/**
 * A {@link TlsContext} that follows its files: certificates renewed on disk are used without a restart.
 *
 * <ul>
 *   <li><b>Reload.</b> {@link #current()} looks at the files' modification times and sizes at most once per check
 *       interval. When they changed it builds a new context from the same {@link TlsContext.Builder}: new handshakes
 *       use it; open connections keep the one they started with.</li>
 *   <li><b>A broken new file</b> (half written, a key that does not match, an expired certificate) keeps the context
 *       in use and logs one WARNING naming the file and what is wrong; it is tried again when the files change
 *       again.</li>
 *   <li><b>Expiry warning.</b> When this side's certificate expires within the warning period, one WARNING says
 *       when: once per certificate (subject and end of validity) while this class is loaded, however many sources
 *       load it (an application that makes a source per configuration, and again on each change of it, warns
 *       once). A renewed certificate that expires soon too is warned about again.</li>
 * </ul>
 *
 * <p>The check runs on the thread that calls {@link #current()} (an event loop making a handler): a few
 * {@code stat} calls per interval, and reading the files when they changed. Thread-safe: one caller checks at a time,
 * the others use the context in use meanwhile.
 */
public final class TlsContextSource {

    /** How often {@link #current()} looks at the files unless told otherwise. */
    public static final Duration DEFAULT_CHECK_INTERVAL = Duration.ofSeconds(5);
    /** How long before expiry the warning comes unless told otherwise. */
    public static final Duration DEFAULT_EXPIRY_WARNING = Duration.ofDays(30);

    private static final System.Logger LOG = System.getLogger(TlsContextSource.class.getName());
    /**
     * The certificates warned about as expiring, as {@link #expiryKey}: each once while this class is loaded. A
     * concurrent set; only grows, by one entry per certificate that was about to expire.
     */
    private static final Set<String> EXPIRY_WARNED = ConcurrentHashMap.newKeySet();

    private final TlsContext.Builder builder;
    private final List<Path> files;
    private final long checkIntervalNanos;
    private final Duration expiryWarning;
    private final LongSupplier nanoClock;
    private final System.Logger log;
    /** The context for new handshakes; replaced by a successful reload. */
    private volatile TlsContext context;
    /** The stamps of the files the context was built from, or that failed last; guarded by this (check). */
    private List<String> stamps;
    /**
     * Whether the context in use had its expiry looked at and warned about (here or by another source, see
     * {@link #EXPIRY_WARNED}); guarded by this (check; set before publication).
     */
    private boolean expiryWarned;
    /** {@link #nanoClock} time of the next check; a caller that moves it forward does the check. */
    private final AtomicLong nextCheckNanos = new AtomicLong();

    private TlsContextSource(TlsContext.Builder builder, Duration checkInterval, Duration expiryWarning,
            LongSupplier nanoClock, System.Logger log) throws TlsConfigException {
        this.builder = builder;
        this.files = builder.files();
        this.checkIntervalNanos = checkInterval.toNanos();
        this.expiryWarning = expiryWarning;
        this.nanoClock = nanoClock;
        this.log = log;
        if (!builder.hasFailureLog()) {
            // one log of failed connections for every context this source builds
            builder.failureLog(new RateLimitedLog(System.getLogger(TlsHandler.class.getName()),
                    System.Logger.Level.WARNING));
        }
        this.stamps = stamps();
        this.context = builder.build();
        this.nextCheckNanos.set(nanoClock.getAsLong() + checkIntervalNanos);
        warnIfExpiring();
    }

    /**
     * Builds the first context (so a mistake in the files is reported at once) and follows the files from then on.
     *
     * @param builder       the settings and files; it builds every later context too, so do not change it afterwards
     * @param checkInterval how often the files are looked at, at most; &gt; 0
     * @param expiryWarning how long before this side's certificate expires to warn
     * @throws TlsConfigException as {@link TlsContext.Builder#build()}
     */
    public static TlsContextSource of(TlsContext.Builder builder, Duration checkInterval, Duration expiryWarning)
            throws TlsConfigException {
        return of(builder, checkInterval, expiryWarning, System::nanoTime, LOG);
    }

    static TlsContextSource of(TlsContext.Builder builder, Duration checkInterval, Duration expiryWarning,
            LongSupplier nanoClock, System.Logger log) throws TlsConfigException {
        Objects.requireNonNull(builder, "builder");
        if (checkInterval.isNegative() || checkInterval.isZero()) {
            throw new IllegalArgumentException("check interval must be > 0: " + checkInterval);
        }
        return new TlsContextSource(builder, checkInterval, Objects.requireNonNull(expiryWarning, "expiryWarning"),
                nanoClock, log);
    }

    /** @return the context for a new handshake, reloaded first when the files changed (at most once per interval) */
    public TlsContext current() {
        long now = nanoClock.getAsLong();
        long next = nextCheckNanos.get();
        if (now - next >= 0 && nextCheckNanos.compareAndSet(next, now + checkIntervalNanos)) {
            check();
        }
        return context;
    }

    /** @return a handler for one accepted channel, from {@link #current()} */
    public TlsHandler newServerHandler() {
        return current().newServerHandler();
    }

    /** @return a handler for one connecting channel, from {@link #current()}; see {@link TlsContext#newClientHandler} */
    public TlsHandler newClientHandler(String host, int port) {
        return current().newClientHandler(host, port);
    }

    /** @return the files followed */
    public List<Path> files() {
        return files;
    }

    private synchronized void check() {
        List<String> now = stamps();
        if (!now.equals(stamps)) {
            stamps = now;
            try {
                TlsContext fresh = builder.build();
                context = fresh;
                expiryWarned = false;
                log.log(System.Logger.Level.INFO, () -> "TLS files changed, new handshakes use them: " + files
                        + describe(fresh));
            } catch (TlsConfigException | RuntimeException e) {
                log.log(System.Logger.Level.WARNING, () -> "TLS files changed but cannot be used: " + e.getMessage()
                        + "; new handshakes keep the certificate loaded before" + describe(context));
            }
        }
        warnIfExpiring();
    }

    private void warnIfExpiring() {
        TlsContext c = context;
        if (expiryWarned || c.certificateChain().isEmpty()) {
            return;
        }
        X509Certificate cert = c.certificateChain().get(0);
        Instant notAfter = cert.getNotAfter().toInstant();
        if (Instant.now().plus(expiryWarning).isAfter(notAfter)) {
            expiryWarned = true;
            if (!EXPIRY_WARNED.add(expiryKey(cert))) {
                return; // another source, or an earlier one of the same files, has warned about it
            }
            long days = Duration.between(Instant.now(), notAfter).toDays();
            log.log(System.Logger.Level.WARNING, () -> "the certificate '" + cert.getSubjectX500Principal().getName()
                    + "' in " + files.get(0) + " expires on " + notAfter + " (in " + days + " days); renew it: the"
                    + " new files are used as soon as they are in place");
        }
    }

    /** @return what tells a certificate for {@link #EXPIRY_WARNED}: its subject and the end of its validity */
    static String expiryKey(X509Certificate cert) {
        return cert.getSubjectX500Principal().getName() + " until " + cert.getNotAfter().toInstant();
    }

    private static String describe(TlsContext c) {
        if (c.certificateChain().isEmpty()) {
            return "";
        }
        X509Certificate cert = c.certificateChain().get(0);
        return " (certificate '" + cert.getSubjectX500Principal().getName() + "', expires "
                + cert.getNotAfter().toInstant() + ")";
    }

    /** @return the modification time and size of each file, or that it is missing */
    private List<String> stamps() {
        List<String> s = new ArrayList<>(files.size());
        for (Path p : files) {
            try {
                BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
                s.add(a.lastModifiedTime().to(java.util.concurrent.TimeUnit.NANOSECONDS) + "/" + a.size() + "/" + a.fileKey());
            } catch (NoSuchFileException missing) {
                s.add("missing");
            } catch (IOException unreadable) {
                s.add("unreadable: " + unreadable.getMessage());
            }
        }
        return s;
    }
}
