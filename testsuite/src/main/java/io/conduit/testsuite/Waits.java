package io.conduit.testsuite;

import static org.junit.jupiter.api.Assertions.fail;

import io.conduit.channel.Channel;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.concurrent.Future;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Bounded waits of the tests: each fails the test (an {@link AssertionError}) when what it waits for has not happened
 * within the given number of seconds, rather than hanging. Shared by the conformance tests
 * ({@link AbstractTransportTest}) and the transport modules' own feature tests. Any thread; an interrupt fails the
 * test and keeps the thread's interrupt status.
 */
public final class Waits {

    private Waits() {
    }

    /** Waits for {@code f} and returns its result, failing the test with the cause when it failed. */
    public static <T> T await(Future<T> f, long seconds) {
        awaitDone(f, seconds);
        if (!f.isSuccess()) {
            throw new AssertionError("operation failed: " + f.cause(), f.cause());
        }
        return f.getNow();
    }

    /** Waits for {@code f} to be done (success or failure). @return its cause, or {@code null} when it succeeded */
    public static Throwable awaitDone(Future<?> f, long seconds) {
        try {
            if (!f.await(seconds, TimeUnit.SECONDS)) {
                fail("not done within " + seconds + " s: " + f);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail("interrupted");
        }
        return f.cause();
    }

    /** Waits for {@code f} to fail, failing the test when it succeeds. @return its cause */
    public static Throwable awaitFailure(Future<?> f, long seconds) {
        Throwable cause = awaitDone(f, seconds);
        if (f.isSuccess()) {
            fail("expected a failure: " + f);
        }
        return cause;
    }

    /** Polls {@code condition} every 2 ms until it holds, failing the test after {@code seconds}. */
    public static void eventually(String what, long seconds, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("timed out after " + seconds + " s waiting for " + what);
            }
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail("interrupted");
            }
        }
    }

    /** Closes each channel that is not {@code null}, waiting up to 5 s for each; quiet (for finally blocks). */
    public static void closeAll(Channel... channels) {
        for (Channel c : channels) {
            if (c != null) {
                try {
                    c.close().await(5, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /** Shuts {@code group} down without a quiet period (at most 5 s), waiting up to 15 s; {@code null} is ignored. */
    public static void shutdown(EventLoopGroup group) throws InterruptedException {
        if (group != null) {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(15, TimeUnit.SECONDS);
        }
    }
}
