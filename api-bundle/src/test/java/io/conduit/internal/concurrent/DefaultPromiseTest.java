package io.conduit.internal.concurrent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.conduit.concurrent.BlockingOperationException;
import io.conduit.concurrent.EventExecutor;
import io.conduit.concurrent.EventExecutors;
import io.conduit.concurrent.EventLoopGroup;
import io.conduit.concurrent.Promise;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class DefaultPromiseTest {

    private static EventLoopGroup group;
    private static EventExecutor loop;

    @BeforeAll
    static void start() {
        group = EventExecutors.newGroup(1, "promise-test");
        loop = group.next();
    }

    @AfterAll
    static void stop() throws InterruptedException {
        group.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
    }

    @Test
    void listenersAreNotifiedOnceInTheOrderTheyWereAdded() {
        DefaultPromise<String> p = new DefaultPromise<>(null);
        List<String> calls = new ArrayList<>();
        p.addListener(f -> calls.add("a:" + f.getNow()));
        p.addListener(f -> calls.add("b:" + f.getNow()));
        p.addListener(f -> calls.add("c:" + f.getNow()));
        p.setSuccess("x");
        assertFalse(p.trySuccess("y"));
        assertEquals(List.of("a:x", "b:x", "c:x"), calls);
    }

    @Test
    void listenersRunOnTheExecutorInOrderWhenCompletedFromAnotherThread() throws Exception {
        Promise<Integer> p = loop.newPromise();
        List<String> calls = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch done = new CountDownLatch(3);
        for (int i = 0; i < 3; i++) {
            int n = i;
            p.addListener(f -> {
                calls.add(n + (loop.inEventLoop() ? "@loop" : "@other"));
                done.countDown();
            });
        }
        p.setSuccess(7);
        assertTrue(done.await(5, TimeUnit.SECONDS));
        assertEquals(List.of("0@loop", "1@loop", "2@loop"), calls);
    }

    @Test
    void lateListenerIsNotifiedAtOnceAndOnTheExecutor() throws Exception {
        DefaultPromise<String> inline = new DefaultPromise<>(null);
        inline.setSuccess("done");
        List<String> calls = new ArrayList<>();
        inline.addListener(f -> calls.add("late:" + f.getNow()));
        assertEquals(List.of("late:done"), calls);

        Promise<String> p = loop.newPromise();
        p.setSuccess("v");
        CompletableFuture<Boolean> onLoop = new CompletableFuture<>();
        p.addListener(f -> onLoop.complete(loop.inEventLoop()));
        assertTrue(onLoop.get(5, TimeUnit.SECONDS));
    }

    @Test
    void listenerAddedDuringNotificationRunsAfterTheOthers() {
        DefaultPromise<Void> p = new DefaultPromise<>(null);
        List<String> calls = new ArrayList<>();
        p.addListener(f -> {
            calls.add("first");
            p.addListener(g -> calls.add("added-by-first"));
        });
        p.addListener(f -> calls.add("second"));
        p.setSuccess(null);
        assertEquals(List.of("first", "second", "added-by-first"), calls);
    }

    @Test
    void aThrowingListenerDoesNotStopTheOthers() {
        DefaultPromise<Void> p = new DefaultPromise<>(null);
        List<String> calls = new ArrayList<>();
        p.addListener(f -> {
            throw new IOException("listener failure (expected by the test)");
        });
        p.addListener(f -> calls.add("ran"));
        p.setSuccess(null);
        assertEquals(List.of("ran"), calls);
        assertTrue(p.isSuccess());
    }

    @Test
    void removedListenerIsNotNotified() {
        DefaultPromise<Void> p = new DefaultPromise<>(null);
        List<String> calls = new ArrayList<>();
        io.conduit.concurrent.FutureListener<Void> l = f -> calls.add("removed");
        p.addListener(l);
        p.addListener(f -> calls.add("kept"));
        p.removeListener(l);
        p.setSuccess(null);
        assertEquals(List.of("kept"), calls);
    }

    /** A lone listener is kept without a list; removing it, then adding others, must still work in order. */
    @Test
    void aLoneListenerCanBeRemovedAndReplaced() {
        DefaultPromise<Void> p = new DefaultPromise<>(null);
        List<String> calls = new ArrayList<>();
        io.conduit.concurrent.FutureListener<Void> lone = f -> calls.add("lone");
        p.addListener(lone);
        p.removeListener(f -> calls.add("never added"));
        p.removeListener(lone);
        p.addListener(f -> calls.add("first"));
        p.addListener(f -> calls.add("second"));
        p.setSuccess(null);
        assertEquals(List.of("first", "second"), calls);
        DefaultPromise<Void> q = new DefaultPromise<>(null);
        q.addListener(lone);
        q.setSuccess(null);
        assertEquals(List.of("first", "second", "lone"), calls);
    }

    @Test
    void cancelCompletesWithCancellationException() {
        DefaultPromise<String> p = new DefaultPromise<>(null);
        assertTrue(p.isCancellable());
        assertTrue(p.cancel(false));
        assertTrue(p.isDone());
        assertTrue(p.isCancelled());
        assertFalse(p.isSuccess());
        assertInstanceOf(CancellationException.class, p.cause());
        assertThrows(CancellationException.class, p::get);
        assertFalse(p.cancel(true));
        assertFalse(p.trySuccess("late"));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> p.setSuccess("late"));
        assertTrue(e.getMessage().contains("failure"), e.getMessage());
        assertFalse(p.setUncancellable());
    }

    @Test
    void uncancellablePromiseIgnoresCancelButCanStillComplete() throws Exception {
        DefaultPromise<String> p = new DefaultPromise<>(null);
        assertTrue(p.setUncancellable());
        assertFalse(p.isCancellable());
        assertFalse(p.cancel(true));
        assertFalse(p.isDone());
        assertFalse(p.isCancelled());
        p.setSuccess("ok");
        assertEquals("ok", p.get());
        assertTrue(p.setUncancellable());
    }

    @Test
    void failureIsReportedByGetSyncAndCause() {
        DefaultPromise<String> p = new DefaultPromise<>(null);
        IOException boom = new IOException("boom");
        p.setFailure(boom);
        assertSame(boom, p.cause());
        assertNull(p.getNow());
        ExecutionException ee = assertThrows(ExecutionException.class, p::get);
        assertSame(boom, ee.getCause());
        IOException thrown = assertThrows(IOException.class, p::sync);
        assertSame(boom, thrown);
        assertThrows(IllegalStateException.class, () -> p.setFailure(new IOException("again")));
        assertFalse(p.tryFailure(new IOException("again")));
    }

    @Test
    void successWithNullIsDistinctFromPending() throws Exception {
        DefaultPromise<String> p = new DefaultPromise<>(null);
        assertFalse(p.isDone());
        p.setSuccess(null);
        assertTrue(p.isDone());
        assertTrue(p.isSuccess());
        assertNull(p.get());
    }

    @Test
    void timedWaitsReturnOrThrowOnTimeout() throws Exception {
        DefaultPromise<String> p = new DefaultPromise<>(null);
        assertFalse(p.await(20, TimeUnit.MILLISECONDS));
        assertThrows(TimeoutException.class, () -> p.get(10, TimeUnit.MILLISECONDS));
        assertFalse(p.await(0, TimeUnit.MILLISECONDS));
        new Thread(() -> p.setSuccess("later")).start();
        assertTrue(p.await(Long.MAX_VALUE, TimeUnit.DAYS));
        assertEquals("later", p.get(1, TimeUnit.SECONDS));
    }

    @Test
    void completionStageSucceeds() throws Exception {
        DefaultPromise<String> p = new DefaultPromise<>(null);
        CompletableFuture<String> cf = p.toCompletionStage().thenApply(s -> s + "!").toCompletableFuture();
        assertFalse(cf.isDone());
        p.setSuccess("hi");
        assertEquals("hi!", cf.get(5, TimeUnit.SECONDS));
    }

    @Test
    void completionStageFails() {
        Promise<String> p = loop.newPromise();
        CompletableFuture<String> cf = p.toCompletionStage().toCompletableFuture();
        IOException boom = new IOException("boom");
        p.setFailure(boom);
        ExecutionException ee = assertThrows(ExecutionException.class, () -> cf.get(5, TimeUnit.SECONDS));
        assertSame(boom, ee.getCause());
    }

    @Test
    void completionStageOfCancelledPromiseIsCancelled() throws Exception {
        DefaultPromise<String> p = new DefaultPromise<>(null);
        p.cancel(false);
        CompletableFuture<String> cf = p.toCompletionStage().toCompletableFuture();
        assertTrue(cf.isCompletedExceptionally());
        assertThrows(CancellationException.class, () -> cf.get(5, TimeUnit.SECONDS));
        assertTrue(cf.isCancelled());
    }

    @Test
    void completionStageIsReadOnlyAndCancellingItCancelsThePromise() {
        DefaultPromise<String> p = new DefaultPromise<>(null);
        CompletableFuture<String> cf = p.toCompletionStage().toCompletableFuture();
        assertThrows(UnsupportedOperationException.class, () -> cf.complete("forged"));
        assertThrows(UnsupportedOperationException.class, () -> cf.completeExceptionally(new IOException()));
        assertFalse(p.isDone());
        assertTrue(cf.cancel(false));
        assertTrue(p.isCancelled());
        assertTrue(cf.isCancelled());

        DefaultPromise<String> fixed = new DefaultPromise<>(null);
        fixed.setUncancellable();
        CompletableFuture<String> fixedStage = fixed.toCompletionStage().toCompletableFuture();
        assertFalse(fixedStage.cancel(true));
        assertFalse(fixed.isDone());
    }

    @Test
    void waitingOnTheExecutorsOwnThreadThrowsBlockingOperationException() throws Exception {
        String result = loop.submit(() -> {
            Promise<String> pending = loop.newPromise();
            StringBuilder sb = new StringBuilder();
            for (ThrowingRunnable r : List.<ThrowingRunnable>of(pending::await, pending::sync, pending::get,
                    () -> pending.await(1, TimeUnit.SECONDS), () -> pending.get(1, TimeUnit.SECONDS))) {
                try {
                    r.run();
                    sb.append("returned;");
                } catch (BlockingOperationException e) {
                    sb.append(e.getMessage().contains("dead-lock") ? "blocked;" : "bad message;");
                }
            }
            Promise<String> done = loop.newPromise();
            done.setSuccess("ok");
            sb.append(done.sync().getNow());
            return sb.toString();
        }).get(5, TimeUnit.SECONDS);
        assertEquals("blocked;blocked;blocked;blocked;blocked;ok", result);
    }

    @FunctionalInterface
    interface ThrowingRunnable {
        void run() throws Exception;
    }
}
