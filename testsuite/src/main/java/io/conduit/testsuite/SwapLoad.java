package io.conduit.testsuite;

import io.conduit.concurrent.EventLoopGroup;
import io.conduit.transport.ManagedServer;
import io.conduit.transport.Transport;
import io.conduit.transport.Transports;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Continuous echo load against a {@link ManagedServer} while the transport preference flips between two
 * {@link SwapTransports} transports. Bounded: {@code clients} threads loop connect / write 1 KiB / read it back /
 * verify / close until the duration ends (at most {@value #MAX_EXCHANGES_PER_CLIENT} exchanges each). Also runs
 * as a program (a child JVM in a private network namespace) that prints one {@code RESULT} line.
 */
public final class SwapLoad {

    public static final int EXCHANGE_BYTES = 1024;
    public static final int MAX_EXCHANGES_PER_CLIENT = 20_000;

    /** Figures of one run. */
    public record Result(long attempted, long completed, long refused, long reset, long cut, long timedOut,
                  long verifiedBytes, long corrupted, int swaps, String finalTransport, boolean oldGroupsTerminated,
                  int openConnectionsAfter, String firstFailure) {
        public String line() {
            return "RESULT attempted=" + attempted + " completed=" + completed + " refused=" + refused + " reset="
                    + reset + " cut=" + cut + " timedOut=" + timedOut + " verifiedBytes=" + verifiedBytes
                    + " corrupted=" + corrupted + " swaps=" + swaps + " final=" + finalTransport
                    + " oldGroupsTerminated=" + oldGroupsTerminated + " openAfter=" + openConnectionsAfter
                    + (firstFailure == null ? "" : " firstFailure=" + firstFailure);
        }
    }

    private SwapLoad() {
    }

    /** @param base the transport under test; the load swaps between two copies of it ({@link SwapTransports}) */
    public static Result run(Transport base, int clients, long durationMillis, long flipEveryMillis) throws Exception {
        RenamedTransport.Provider a = SwapTransports.provider(base, "swap-a", true);
        RenamedTransport.Provider b = SwapTransports.provider(base, "swap-b", true);
        Transports.register(a);
        Transports.register(b);
        Transports.setPreference("swap-a");
        ManagedServer server = new ManagedServer(new InetSocketAddress("127.0.0.1", 0))
                .childHandler(new EchoHandler()).gracePeriod(2, TimeUnit.SECONDS);
        try {
            InetSocketAddress address = (InetSocketAddress) server.start().sync().getNow();
            AtomicLong attempted = new AtomicLong();
            AtomicLong completed = new AtomicLong();
            AtomicLong refused = new AtomicLong();
            AtomicLong reset = new AtomicLong();
            AtomicLong cut = new AtomicLong();
            AtomicLong timedOut = new AtomicLong();
            AtomicLong verified = new AtomicLong();
            AtomicLong corrupted = new AtomicLong();
            // the first reset, cut or time-out with when it happened: which swap step it met is what a failure needs
            AtomicReference<String> firstFailure = new AtomicReference<>();
            long start = System.nanoTime();
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(durationMillis);
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < clients; i++) {
                int seed = i;
                Thread t = new Thread(() -> {
                    byte[] out = new byte[EXCHANGE_BYTES];
                    byte[] in = new byte[EXCHANGE_BYTES];
                    for (int n = 0; n < MAX_EXCHANGES_PER_CLIENT && System.nanoTime() < deadline; n++) {
                        for (int k = 0; k < out.length; k++) {
                            out[k] = (byte) (seed * 31 + n * 7 + k);
                        }
                        attempted.incrementAndGet();
                        try (Socket s = new Socket()) {
                            try {
                                s.connect(address, 2000);
                            } catch (ConnectException e) {
                                refused.incrementAndGet();
                                continue;
                            }
                            s.setSoTimeout(2000);
                            OutputStream os = s.getOutputStream();
                            InputStream is = s.getInputStream();
                            os.write(out);
                            int got = 0;
                            while (got < in.length) {
                                int r = is.read(in, got, in.length - got);
                                if (r < 0) {
                                    throw new EOFException("closed after " + got + " bytes");
                                }
                                got += r;
                            }
                            if (java.util.Arrays.equals(in, out)) {
                                verified.addAndGet(got);
                                completed.incrementAndGet();
                            } else {
                                corrupted.incrementAndGet();
                            }
                        } catch (EOFException e) {
                            cut.incrementAndGet();
                            firstFailure.compareAndSet(null, failure(e, start));
                        } catch (SocketTimeoutException e) {
                            timedOut.incrementAndGet();
                            firstFailure.compareAndSet(null, failure(e, start));
                        } catch (IOException e) {
                            reset.incrementAndGet(); // "Connection reset" / broken pipe
                            firstFailure.compareAndSet(null, failure(e, start));
                        }
                    }
                }, "swap-load-client-" + i);
                t.setDaemon(true);
                threads.add(t);
                t.start();
            }
            int swaps = 0;
            String[] names = {"swap-b", "swap-a"};
            while (System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(flipEveryMillis) < deadline) {
                Thread.sleep(flipEveryMillis);
                Transports.setPreference(names[swaps % 2]);
                swaps++;
            }
            for (Thread t : threads) {
                t.join(10_000);
            }
            String expected = swaps == 0 ? "swap-a" : names[(swaps - 1) % 2];
            long waitUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (!expected.equals(server.transportName()) && System.nanoTime() < waitUntil) {
                Thread.sleep(10);
            }
            RenamedTransport last = (expected.equals("swap-a") ? a : b).transport;
            EventLoopGroup currentGroup = last.groups().get(last.groups().size() - 1);
            boolean terminated = true;
            List<EventLoopGroup> all = new ArrayList<>(a.transport.groups());
            all.addAll(b.transport.groups());
            for (EventLoopGroup g : all) {
                if (g != currentGroup) {
                    terminated &= g.terminationFuture().await(15, TimeUnit.SECONDS);
                }
            }
            waitUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (server.openConnections() > 0 && System.nanoTime() < waitUntil) {
                Thread.sleep(10);
            }
            return new Result(attempted.get(), completed.get(), refused.get(), reset.get(), cut.get(), timedOut.get(),
                    verified.get(), corrupted.get(), swaps, server.transportName(), terminated && !currentGroup.isShuttingDown(),
                    server.openConnections(), firstFailure.get());
        } finally {
            server.close().await(15, TimeUnit.SECONDS);
            Transports.setPreference(null);
            Transports.unregister(a);
            Transports.unregister(b);
        }
    }

    private static String failure(IOException e, long start) {
        return "[" + e + " after " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " ms]";
    }

    /**
     * Child-JVM entry: {@code clients durationMillis flipEveryMillis transport}, the last the name of the transport
     * under test as the child discovers it; prints the {@code RESULT} line.
     */
    public static void main(String[] args) throws Exception {
        Result r = run(Transports.get(args[3]), Integer.parseInt(args[0]), Long.parseLong(args[1]),
                Long.parseLong(args[2]));
        System.out.println(r.line());
        System.out.flush();
        System.exit(0);
    }
}
