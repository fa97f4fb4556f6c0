package io.conduit.handler.ssl;

import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLEngineResult.Status;
import javax.net.ssl.SSLException;

import io.conduit.buffer.Buffer;
import io.conduit.buffer.ReferenceCounted;
import io.conduit.channel.ChannelClosedException;
import io.conduit.channel.ChannelHandler;
import io.conduit.channel.ConnectionFacts;
import io.conduit.channel.ChannelHandlerContext;
import io.conduit.channel.ChannelOption;
import io.conduit.channel.DuplexChannel;
import io.conduit.concurrent.Future;
import io.conduit.concurrent.Promise;

/**
 * TLS for one channel, client or server side, over the JDK's {@link SSLEngine}: inbound {@link Buffer}s of TLS
 * records become buffers of plain data for the handlers after it; plain {@link Buffer}s written by them are encrypted.
 * Make one per channel with {@link TlsContext#newServerHandler()}, {@link TlsContext#newClientHandler(String, int)} or
 * {@link SniMapping#newServerHandler()}, as the first handler that sees the channel's bytes.
 *
 * <ul>
 *   <li><b>Handshake</b>: a client starts it when the channel becomes active. When it completes, the handler fires a
 *       {@link TlsHandshakeCompletionEvent} and completes {@link #handshakeFuture()}; later handlers read what was
 *       negotiated from {@link #handshakeResult()} (protocol, ALPN, peer certificates, resumption). Writes made before
 *       are held and sent after it. It must complete within the context's handshake timeout.</li>
 *   <li><b>Reads</b>: records split across reads at any byte, or many records in one read, are both fine; the
 *       handler keeps at most one incomplete record.</li>
 *   <li><b>Writes</b>: {@code flush} encrypts every write flushed so far, gathering them into as few records as the
 *       engine allows (up to 16 KiB of plain data each). A write's promise completes when the encrypted bytes that
 *       hold its last byte were written to the socket, so a peer that does not read stops the writer as on a plain
 *       channel (the channel becomes unwritable, promises stay pending). Only {@link Buffer}s can be written.</li>
 *   <li><b>Close</b>: closing the channel fails the writes not encrypted yet, sends {@code close_notify}, and closes
 *       the socket once it is written (at most a few seconds later). A {@code close_notify} from the peer fires
 *       {@link TlsCloseNotifyEvent}; with TLS 1.3 and {@link ChannelOption#ALLOW_HALF_CLOSURE} the output stays open
 *       (half-closure, as the JDK documents for TLS 1.3), otherwise the channel is closed.</li>
 *   <li><b>Failures</b>: a failed handshake or bad input (not TLS, a broken record, a missing client certificate
 *       where one is required, a timeout) sends the engine's alert, closes the connection and logs one rate-limited
 *       line per context, without a stack trace; the handshake future fails with the cause. A client sends its alert
 *       too (a certificate it does not trust: {@code certificate_unknown}). The alert is flushed before the future
 *       fails, and closing the channel after that waits until the alert is written (a few seconds at most).</li>
 * </ul>
 *
 * <p>Not sharable; every method runs on the channel's event loop. Delegated engine tasks run there too.
 */
public final class TlsHandler implements ChannelHandler, ConnectionFacts {

    /** The peer a client connects to. */
    record Peer(String host, int port) {
    }

    /** A plain write not encrypted yet. */
    private record PendingWrite(Buffer data, Promise<Void> promise) {
    }

    /** How much plain data one encrypted buffer gathers at most before it is written. */
    private static final int MAX_PLAIN_BYTES_PER_WRITE = 256 * 1024;
    /** How long a close waits for its close_notify to be written before it closes the socket anyway. */
    private static final long CLOSE_NOTIFY_WRITE_TIMEOUT_MILLIS = 3_000;
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

    private final TlsContext fixedContext;   // null when the context is chosen by SNI
    private final SniMapping sniMapping;     // null unless the context is chosen by SNI
    private final Peer peer;                 // null on a server

    private ChannelHandlerContext ctx;
    private TlsContext context;
    private SSLEngine engine;
    private String requestedServerName;
    /** {@link System#currentTimeMillis()} when the engine was made: a session created before it was resumed. */
    private long engineCreatedMillis;
    /** Received bytes of an incomplete record, or the ClientHello before a server chose its context by SNI. */
    private final TlsRecordStash inNet = new TlsRecordStash(
            () -> engine != null ? engine.getSession().getPacketBufferSize() : 0);
    private final ArrayDeque<PendingWrite> unflushed = new ArrayDeque<>();
    private final ArrayDeque<PendingWrite> flushed = new ArrayDeque<>();
    private Promise<TlsHandshakeResult> handshakePromise;
    private TlsHandshakeResult handshakeResult;
    private java.util.concurrent.ScheduledFuture<?> handshakeTimeout;
    private boolean started;
    private boolean failed;
    private boolean closing;
    /** the future of a half-closure asked for ({@link #closeOutbound()}), so a second call gets the same one */
    private Future<Void> outboundClosing;
    private boolean receivedBytes;
    private boolean firstByteLooksLikeTls;
    private boolean needsFlush;
    /** The future of the last encrypted buffer written, or null: a close waits for it (its close_notify). */
    private Future<Void> lastWrite;

    TlsHandler(TlsContext context, Peer peer) {
        this.fixedContext = context;
        this.sniMapping = null;
        this.peer = peer;
    }

    TlsHandler(SniMapping mapping) {
        this.fixedContext = null;
        this.sniMapping = mapping;
        this.peer = null;
    }

    /** @return completes when the handshake does: with what it negotiated, or failed with why */
    public Future<TlsHandshakeResult> handshakeFuture() {
        if (handshakePromise == null) {
            throw new IllegalStateException("the handler is not in a pipeline yet");
        }
        return handshakePromise;
    }

    /** @return what the completed handshake negotiated, or null before it completed */
    public TlsHandshakeResult handshakeResult() {
        return handshakeResult;
    }

    /**
     * For {@code conduit:channels}: what the handshake negotiated, e.g. {@code "TLSv1.3 sni a.example alpn h2 peer
     * CN=device-42 resumed"}; parts not negotiated are left out.
     *
     * @return that line, or null before the handshake completed
     */
    @Override
    public String connectionFacts() {
        TlsHandshakeResult r = handshakeResult;
        if (r == null) {
            return null;
        }
        return r.protocol() + (r.serverName() != null ? " sni " + r.serverName() : "")
                + (r.applicationProtocol() != null ? " alpn " + r.applicationProtocol() : "")
                + (r.peerSubject() != null ? " peer " + r.peerSubject() : "") + (r.resumed() ? " resumed" : "");
    }

    /** @return the engine, or null before it is made (a server choosing by SNI makes it on the ClientHello) */
    public SSLEngine engine() {
        return engine;
    }

    /** @return the context in use, or null before a server choosing by SNI read the ClientHello */
    public TlsContext context() {
        return context;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.handshakePromise = ctx.executor().newPromise();
        if (ctx.channel().isActive()) {
            start();
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        start();
        ctx.fireChannelActive();
    }

    private void start() {
        if (started) {
            return;
        }
        started = true;
        TlsContext timing = fixedContext != null ? fixedContext : sniMapping.defaultContext();
        handshakeTimeout = ctx.executor().schedule(this::handshakeTimedOut, timing.handshakeTimeoutMillis(),
                TimeUnit.MILLISECONDS);
        if (fixedContext != null) {
            createEngine(fixedContext);
        }
        if (peer != null) {
            try {
                engine.beginHandshake();
                wrapNonApplicationData();
            } catch (SSLException e) {
                fail(e);
                return;
            }
            flushIfNeeded();
        }
        if (!ctx.channel().config().isAutoRead()) {
            ctx.read();
        }
    }

    private void createEngine(TlsContext c) {
        context = c;
        engineCreatedMillis = System.currentTimeMillis();
        engine = peer != null ? c.newEngine(peer.host(), peer.port()) : c.newEngine(null, -1);
    }

    // ---------------------------------------------------------------- inbound

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof Buffer in)) {
            ctx.fireChannelRead(msg);
            return;
        }
        try {
            if (failed || (engine != null && engine.isInboundDone())) {
                return;
            }
            if (!receivedBytes && in.isReadable()) {
                receivedBytes = true;
                int type = in.getByte(in.readerIndex()) & 0xff;
                firstByteLooksLikeTls = type >= 20 && type <= 23;
            }
            if (engine == null) {
                inNet.append(in);
                String name = ClientHello.serverName(inNet.view());
                if (name == ClientHello.NEED_MORE) {
                    return;
                }
                requestedServerName = name;
                createEngine(sniMapping.select(name));
                unwrapStashed();
            } else if (inNet.isEmpty() && in.nioBufferCount() == 1) {
                ByteBuffer src = in.nioBuffer(in.readerIndex(), in.readableBytes());
                ByteBuffer heap = null;
                if (!src.hasArray()) {
                    heap = EngineScratch.take(src.remaining());   // see EngineScratch: decrypting needs an array
                    src = heap.put(src).flip();
                }
                try {
                    unwrap(src);
                    if (src.hasRemaining() && !failed) {
                        inNet.append(src);        // an incomplete record: copied before `in` is released
                    }
                } finally {
                    if (heap != null) {
                        EngineScratch.give(heap);
                    }
                }
            } else {
                inNet.append(in);
                unwrapStashed();
            }
        } catch (SSLException | RuntimeException e) {
            fail(e);
        } finally {
            in.release();
            flushIfNeeded();
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (!failed && handshakeResult == null && !ctx.channel().config().isAutoRead()) {
            ctx.read();   // the handshake needs the peer's next flight, whatever the application asked for
        }
        ctx.fireChannelReadComplete();
    }

    private void unwrapStashed() throws SSLException {
        if (!inNet.holdsCompleteRecord()) {
            return;   // bytes arriving a few at a time: the engine sees the record when it is whole
        }
        try {
            unwrap(inNet.flip());
        } finally {
            inNet.compact();
        }
    }

    /** Decrypts every complete record in {@code src}, passing plain data on; leaves an incomplete record there. */
    private void unwrap(ByteBuffer src) throws SSLException {
        Buffer plain = null;
        int idle = 0;
        try {
            while (!failed) {
                if (plain == null) {
                    plain = allocate(engine.getSession().getApplicationBufferSize());
                }
                ByteBuffer dst = plain.nioBuffer(plain.writerIndex(), plain.writableBytes());
                SSLEngineResult r = engine.unwrap(src, dst);
                plain.writerIndex(plain.writerIndex() + r.bytesProduced());
                Status status = r.getStatus();
                if (status == Status.BUFFER_OVERFLOW) {
                    Buffer full = plain;
                    plain = null;
                    if (full.isReadable()) {
                        ctx.fireChannelRead(full);
                    } else {
                        full.release();
                        plain = allocate(engine.getSession().getApplicationBufferSize() * 2);
                    }
                    continue;
                }
                HandshakeStatus hs = handleHandshakeStatus(r.getHandshakeStatus());
                if (status == Status.CLOSED) {
                    if (plain.isReadable()) {
                        ctx.fireChannelRead(plain);
                        plain = null;
                    }
                    closeNotifyReceived();
                    return;
                }
                if (status == Status.BUFFER_UNDERFLOW || !src.hasRemaining() && hs != HandshakeStatus.NEED_WRAP) {
                    return;
                }
                idle = r.bytesConsumed() == 0 && r.bytesProduced() == 0 ? idle + 1 : 0;
                if (idle > 0 && hs != HandshakeStatus.NEED_WRAP || idle > 2) {
                    return;   // no progress: wait for more bytes (never spin)
                }
                if (plain.writableBytes() < 1024) {
                    ctx.fireChannelRead(plain);
                    plain = null;
                }
            }
        } finally {
            if (plain != null) {
                if (plain.isReadable() && !failed) {
                    ctx.fireChannelRead(plain);
                } else {
                    plain.release();
                }
            }
        }
    }

    /** Runs delegated tasks, sends what the handshake needs sent, notes its end; returns the status after that. */
    private HandshakeStatus handleHandshakeStatus(HandshakeStatus hs) throws SSLException {
        while (true) {
            switch (hs) {
                case NEED_TASK -> {
                    for (Runnable task = engine.getDelegatedTask(); task != null; task = engine.getDelegatedTask()) {
                        task.run();
                    }
                    hs = engine.getHandshakeStatus();
                }
                case NEED_WRAP -> {
                    wrapNonApplicationData();
                    return engine.getHandshakeStatus();
                }
                case FINISHED -> {
                    handshakeDone();
                    return engine.getHandshakeStatus();
                }
                default -> {
                    return hs;
                }
            }
        }
    }

    private void closeNotifyReceived() throws SSLException {
        // TLS 1.2: the engine answers with its own close_notify; TLS 1.3: only the input is closed
        if (engine.getHandshakeStatus() == HandshakeStatus.NEED_WRAP) {
            wrapNonApplicationData();
        }
        ctx.fireUserEventTriggered(TlsCloseNotifyEvent.INSTANCE);
        boolean halfClosure = Boolean.TRUE.equals(ctx.channel().config().getOption(ChannelOption.ALLOW_HALF_CLOSURE));
        if (!halfClosure || engine.isOutboundDone()) {
            flushIfNeeded();
            ctx.channel().close();
        }
    }

    // ---------------------------------------------------------------- handshake

    private void handshakeDone() {
        if (handshakeResult != null) {
            return;
        }
        if (handshakeTimeout != null) {
            handshakeTimeout.cancel(false);
        }
        javax.net.ssl.SSLSession s = engine.getSession();
        String serverName = peer != null ? (peer.host() == null || TlsContext.isIpLiteral(peer.host()) ? null : peer.host())
                : requestedServerName != null ? requestedServerName : TlsHandshakeResult.requestedName(s);
        handshakeResult = TlsHandshakeResult.of(s, engine.getApplicationProtocol(), serverName, resumed(s));
        handshakePromise.trySuccess(handshakeResult);
        ctx.fireUserEventTriggered(TlsHandshakeCompletionEvent.success(handshakeResult));
        if (!flushed.isEmpty()) {
            try {
                wrapFlushed();
            } catch (SSLException e) {
                fail(e);
            }
        }
    }

    /**
     * Two signs of a resumed session, as no JDK API says it: the key and trust managers were not asked about this
     * engine (no certificate was chosen or checked: {@link TlsContext#fullHandshake}), or the session is older than
     * the engine (a resumed session keeps its first creation time; a server on newer JDKs may choose its certificate
     * even when it resumes). Session times have millisecond resolution.
     */
    private boolean resumed(javax.net.ssl.SSLSession s) {
        boolean certificatesExchanged = context.fullHandshake(engine);
        return !certificatesExchanged || s.getCreationTime() < engineCreatedMillis;
    }

    private void handshakeTimedOut() {
        if (handshakeResult != null || failed || !ctx.channel().isOpen()) {
            return;
        }
        failed = true;
        TlsHandshakeTimeoutException e = new TlsHandshakeTimeoutException("TLS handshake not complete within "
                + (context != null ? context : sniMapping.defaultContext()).handshakeTimeoutMillis() + " ms");
        report(e);
        failAll(e);
        ctx.close();
    }

    /** A failed handshake or bad input: send the engine's alert, close, log one line, fail what waits. */
    private void fail(Exception cause) {
        if (failed) {
            return;
        }
        failed = true;
        if (handshakeTimeout != null) {
            handshakeTimeout.cancel(false);
        }
        if (engine != null) {
            engine.closeOutbound();
            try {
                wrapNonApplicationData();   // the alert the engine has for the peer
            } catch (SSLException | RuntimeException ignored) {
                // nothing more to send
            }
            // Sent before anyone hears of the failure: a handler after this one that closes the channel on the failed
            // handshake (a relay does) would otherwise close it with the alert still unflushed, and the peer would
            // read an unexplained end of stream. close() waits for the alert too.
            flushIfNeeded();
        }
        report(cause);
        failAll(cause);
        closeAfterWritten(ctx.newPromise());
    }

    /** Flushes what was encrypted and closes once it is written, or after a bound when the peer does not read. */
    private void closeAfterWritten(Promise<Void> promise) {
        if (lastWrite == null || lastWrite.isDone()) {
            ctx.close(promise);
            return;
        }
        flushIfNeeded();
        boolean[] once = new boolean[1];
        Runnable closeOnce = () -> {
            if (!once[0]) {
                once[0] = true;
                ctx.close(promise);
            }
        };
        java.util.concurrent.ScheduledFuture<?> timeout = ctx.executor().schedule(closeOnce,
                CLOSE_NOTIFY_WRITE_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        lastWrite.addListener(f -> {
            timeout.cancel(false);
            closeOnce.run();
        });
    }

    private void report(Throwable cause) {
        TlsContext c = context != null ? context : sniMapping.defaultContext();
        SocketAddress local = ctx.channel().localAddress();
        SocketAddress remote = ctx.channel().remoteAddress();
        String reason = receivedBytes && !firstByteLooksLikeTls && peer == null
                ? "not TLS: the first byte is no TLS record type (plain text on a TLS port?)"
                : String.valueOf(cause.getMessage()) + certificateHint(cause);
        String what = handshakeResult == null ? "TLS handshake failed" : "TLS failed";
        c.failureLog().occurred(() -> what + " on " + local + " with " + remote + ": " + reason
                + "; closed the connection");
    }

    /** @return what to do about a peer certificate that failed its check, from the cause's type; else empty */
    private static String certificateHint(Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof java.security.cert.CertificateExpiredException) {
                return " (the peer's certificate expired: the peer must renew it)";
            }
            if (t instanceof java.security.cert.CertificateNotYetValidException) {
                return " (the peer's certificate is not valid yet: check the clocks)";
            }
            if (t instanceof java.security.cert.CertPathBuilderException) {
                return " (the peer's certificate does not chain to a trusted CA: trust the CA certificate that issued"
                        + " it)";
            }
        }
        return "";
    }

    private void failAll(Throwable cause) {
        if (handshakeResult == null && handshakePromise.tryFailure(cause)) {
            ctx.fireUserEventTriggered(TlsHandshakeCompletionEvent.failure(cause));
        }
        failPending(unflushed, cause);
        failPending(flushed, cause);
    }

    private static void failPending(ArrayDeque<PendingWrite> queue, Throwable cause) {
        for (PendingWrite w = queue.poll(); w != null; w = queue.poll()) {
            w.data().release();
            w.promise().tryFailure(cause);
        }
    }

    // ---------------------------------------------------------------- outbound

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, Promise<Void> promise) {
        if (!(msg instanceof Buffer data)) {
            if (msg instanceof ReferenceCounted rc) {
                rc.release();
            }
            promise.tryFailure(new UnsupportedOperationException("a TLS channel writes Buffers only; got "
                    + (msg == null ? "null" : msg.getClass().getName())));
            return;
        }
        if (failed || closing || (engine != null && engine.isOutboundDone())) {
            data.release();
            promise.tryFailure(new ChannelClosedException("TLS output of " + ctx.channel() + " is closed; the write"
                    + " was not sent", null));
            return;
        }
        unflushed.add(new PendingWrite(data, promise));
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
        flushed.addAll(unflushed);
        unflushed.clear();
        if (handshakeResult != null && !failed) {
            try {
                wrapFlushed();
            } catch (SSLException | RuntimeException e) {
                fail(e);
                return;
            }
        }
        needsFlush = false;
        ctx.flush();
    }

    /**
     * A buffer with room for {@code bytes} at once: the engine writes into one contiguous region and needs it whole
     * (an allocator may hand out less than asked; the buffer then grows).
     */
    private Buffer allocate(int bytes) {
        Buffer b = ctx.alloc().buffer(bytes);
        if (b.writableBytes() < bytes) {
            b.ensureWritable(bytes);
        }
        return b;
    }

    private void flushIfNeeded() {
        if (needsFlush) {
            needsFlush = false;
            ctx.flush();
        }
    }

    /** Encrypts every flushed write, gathering them into as few records and buffers as possible. */
    private void wrapFlushed() throws SSLException {
        int packetSize = engine.getSession().getPacketBufferSize();
        while (!flushed.isEmpty()) {
            List<PendingWrite> batch = new ArrayList<>();
            List<ByteBuffer> sources = new ArrayList<>();
            List<Integer> partCounts = new ArrayList<>();
            long plainBytes = 0;
            for (PendingWrite w : flushed) {
                if (plainBytes >= MAX_PLAIN_BYTES_PER_WRITE && !batch.isEmpty()) {
                    break;
                }
                batch.add(w);
                int n = w.data().readableBytes();
                ByteBuffer[] parts = n == 0 ? new ByteBuffer[0] : w.data().nioBuffers(w.data().readerIndex(), n);
                sources.addAll(List.of(parts));
                partCounts.add(parts.length);
                plainBytes += n;
            }
            ByteBuffer[] srcs = sources.toArray(ByteBuffer[]::new);
            int records = (int) Math.max(1, (plainBytes + 16_383) / 16_384);
            // records are encrypted in a heap buffer (see EngineScratch), then copied once into a direct one
            ByteBuffer dst = EngineScratch.take(
                    (int) Math.min((long) records * packetSize, (long) MAX_PLAIN_BYTES_PER_WRITE + 16 * packetSize));
            Buffer out = null;
            boolean closed = false;
            try {
                int first = 0;
                while (first < srcs.length) {
                    if (!srcs[first].hasRemaining()) {
                        first++;
                        continue;
                    }
                    if (dst.remaining() < packetSize) {
                        break;
                    }
                    SSLEngineResult r = engine.wrap(srcs, first, srcs.length - first, dst);
                    if (r.getStatus() == Status.CLOSED) {
                        closed = true;
                        break;
                    }
                    if (r.getStatus() == Status.BUFFER_OVERFLOW
                            || r.bytesConsumed() == 0 && r.bytesProduced() == 0 && r.getHandshakeStatus() != HandshakeStatus.NEED_TASK) {
                        break;
                    }
                    // a post-handshake message (a key update) is wrapped by the next wrap call into the same buffer,
                    // in order; only delegated tasks are run here
                    if (r.getHandshakeStatus() == HandshakeStatus.NEED_TASK) {
                        for (Runnable task = engine.getDelegatedTask(); task != null; task = engine.getDelegatedTask()) {
                            task.run();
                        }
                    }
                }
                out = allocate(dst.position());
                out.writeBytes(dst.flip());
            } finally {
                EngineScratch.give(dst);
            }
            // the writes whose bytes are all encrypted complete with this buffer; the others stay queued
            List<Promise<Void>> done = new ArrayList<>();
            int srcIndex = 0;
            for (int k = 0; k < batch.size(); k++) {
                PendingWrite w = batch.get(k);
                Buffer data = w.data();
                int before = data.readableBytes();
                int left = 0;
                for (int i = 0; i < partCounts.get(k); i++) {
                    left += srcs[srcIndex++].remaining();
                }
                data.skipBytes(before - left);
                if (left > 0) {
                    break;
                }
                flushed.poll();
                data.release();
                done.add(w.promise());
            }
            if (closed) {
                out.release();
                ChannelClosedException e = new ChannelClosedException("TLS output closed before the write was sent",
                        null);
                done.forEach(p -> p.tryFailure(e));
                failPending(flushed, e);
                return;
            }
            boolean progress = out.isReadable() || !done.isEmpty();
            writeEncrypted(out, done);
            if (!progress) {
                return;   // the engine takes no data now (it cannot happen after the handshake; never spin)
            }
        }
    }

    private void writeEncrypted(Buffer out, List<Promise<Void>> done) {
        if (!out.isReadable() && done.isEmpty()) {
            out.release();
            return;
        }
        Promise<Void> p = ctx.newPromise();
        if (!done.isEmpty()) {
            p.addListener(f -> {
                for (Promise<Void> w : done) {
                    if (f.isSuccess()) {
                        w.trySuccess(null);
                    } else {
                        w.tryFailure(f.cause());
                    }
                }
            });
        }
        lastWrite = ctx.write(out, p);
        needsFlush = true;
    }

    /** Wraps what the engine sends on its own (handshake messages, alerts, close_notify) and writes it. */
    private void wrapNonApplicationData() throws SSLException {
        int packetSize = engine.getSession().getPacketBufferSize();
        Buffer out = allocate(packetSize);
        int idle = 0;
        try {
            while (true) {
                if (out.writableBytes() < packetSize) {
                    out.ensureWritable(packetSize);
                }
                ByteBuffer dst = out.nioBuffer(out.writerIndex(), out.writableBytes());
                SSLEngineResult r = engine.wrap(EMPTY, dst);
                out.writerIndex(out.writerIndex() + r.bytesProduced());
                if (r.getStatus() == Status.BUFFER_OVERFLOW) {
                    out.ensureWritable(out.capacity());
                    continue;
                }
                HandshakeStatus hs = r.getHandshakeStatus();
                if (hs == HandshakeStatus.NEED_TASK) {
                    for (Runnable task = engine.getDelegatedTask(); task != null; task = engine.getDelegatedTask()) {
                        task.run();
                    }
                    hs = engine.getHandshakeStatus();
                }
                if (hs == HandshakeStatus.FINISHED) {
                    writeEncrypted(out, List.of());
                    out = null;
                    handshakeDone();
                    return;
                }
                idle = r.bytesProduced() == 0 ? idle + 1 : 0;
                if (r.getStatus() == Status.CLOSED || hs != HandshakeStatus.NEED_WRAP || idle > 2) {
                    break;
                }
            }
            Buffer written = out;
            out = null;
            writeEncrypted(written, List.of());
        } finally {
            if (out != null) {
                out.release();
            }
        }
    }

    // ---------------------------------------------------------------- close

    /**
     * Ends this side's output the TLS way, for half-closure: encrypts what was flushed, sends {@code close_notify},
     * then, once that is written, shuts the socket's output down ({@link DuplexChannel#shutdownOutput()}) so the peer
     * also reads the end of the stream. The input stays open with TLS 1.3; with TLS 1.2 the peer answers with its own
     * {@code close_notify} and the channel closes. Asked before the handshake completed, it waits for it: the writes
     * held until then go first, then {@code close_notify}; a failed handshake closes the channel and fails the returned
     * future with its cause. After a failure, or on a channel that cannot half-close, the channel is closed instead.
     * Later writes fail. Call on the channel's event loop; a second call returns the first call's future.
     *
     * @return completes when the output is shut down (or the channel closed)
     */
    public Future<Void> closeOutbound() {
        if (ctx == null) {
            throw new IllegalStateException("the handler is not in a pipeline yet");
        }
        if (outboundClosing != null) {
            return outboundClosing;
        }
        if (handshakeResult == null && !failed && !closing && ctx.channel() instanceof DuplexChannel
                && ctx.channel().isActive()) {
            // A relay whose client sent everything and its end of stream before the upstream handshake completed:
            // closing now would abort the handshake with an alert the peer cannot decrypt and drop the held writes.
            Promise<Void> done = ctx.newPromise();
            outboundClosing = done;
            handshakePromise.addListener(h -> {
                outboundClosing = null;
                Future<Void> next = h.isSuccess() ? closeOutbound() : ctx.channel().close();
                next.addListener(f -> {
                    if (!h.isSuccess()) {
                        done.tryFailure(h.cause());
                    } else if (f.isSuccess()) {
                        done.trySuccess(null);
                    } else {
                        done.tryFailure(f.cause());
                    }
                });
            });
            return done;
        }
        if (handshakeResult == null || failed || closing || engine.isOutboundDone()
                || !(ctx.channel() instanceof DuplexChannel duplex)) {
            return ctx.channel().close();
        }
        Promise<Void> done = ctx.newPromise();
        outboundClosing = done;
        flush(ctx);
        failPending(unflushed, new ChannelClosedException("TLS output of " + ctx.channel() + " was closed before this"
                + " write was flushed", null));
        engine.closeOutbound();
        try {
            wrapNonApplicationData();   // close_notify
        } catch (SSLException e) {
            fail(e);
            ctx.channel().close();
            done.tryFailure(e);
            return done;
        }
        Future<Void> written = lastWrite;
        flushIfNeeded();
        Runnable shutdown = () -> duplex.shutdownOutput().addListener(f -> {
            if (f.isSuccess()) {
                done.trySuccess(null);
            } else {
                done.tryFailure(f.cause());
            }
        });
        if (written == null || written.isDone()) {
            shutdown.run();
        } else {
            written.addListener(f -> shutdown.run());
        }
        return done;
    }

    @Override
    public void close(ChannelHandlerContext ctx, Promise<Void> promise) {
        ChannelClosedException e = new ChannelClosedException(ctx.channel() + " was closed before the TLS handler"
                + " encrypted this write", null);
        failPending(unflushed, e);
        failPending(flushed, e);
        if (failed && ctx.channel().isActive()) {
            closing = true;
            closeAfterWritten(promise);   // the alert of the failure may still be on its way
            return;
        }
        if (closing || failed || engine == null || engine.isOutboundDone() || !ctx.channel().isActive()) {
            closing = true;
            ctx.close(promise);
            return;
        }
        closing = true;
        engine.closeOutbound();
        try {
            wrapNonApplicationData();   // close_notify
        } catch (SSLException ignored) {
            // the engine has nothing to send: close at once
        }
        closeAfterWritten(promise);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (handshakeTimeout != null) {
            handshakeTimeout.cancel(false);
        }
        ChannelClosedException e = new ChannelClosedException(ctx.channel() + " closed"
                + (handshakeResult == null ? " during the TLS handshake" : ""), null);
        if (handshakeResult == null && !failed && !closing && engine != null && engine.getUseClientMode()) {
            // We asked for TLS and the peer closed without a word (no alert): one rate-limited line, as for every
            // other failed handshake; it was only counted. A server's clients that connect and leave (probes,
            // health checks) stay quiet.
            failed = true;
            report(new ChannelClosedException("the peer closed the connection during the TLS handshake (is it a TLS "
                    + "server? does it want a client certificate?)", null));
        }
        failAll(e);
        if (engine != null) {
            engine.closeOutbound();
            try {
                engine.closeInbound();
            } catch (SSLException truncated) {
                // the peer closed without close_notify: nothing to do, the channel is gone
            }
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        ChannelClosedException e = new ChannelClosedException("the TLS handler was removed from " + ctx.channel(), null);
        failPending(unflushed, e);
        failPending(flushed, e);
        if (handshakeTimeout != null) {
            handshakeTimeout.cancel(false);
        }
    }
}
