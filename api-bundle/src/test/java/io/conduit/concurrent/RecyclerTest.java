package io.conduit.concurrent;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(20)
class RecyclerTest {

    static final class Pooled {
        final Recycler.Handle<Pooled> handle;

        Pooled(Recycler.Handle<Pooled> handle) {
            this.handle = handle;
        }

        void recycle() {
            handle.recycle(this);
        }
    }

    static final class PooledRecycler extends Recycler<Pooled> {
        int created; // touched by one thread at a time in these tests

        PooledRecycler() {
        }

        PooledRecycler(int max) {
            super(max);
        }

        @Override
        protected Pooled newObject(Handle<Pooled> handle) {
            created++;
            return new Pooled(handle);
        }
    }

    private static EventLoopGroup group;
    private static EventExecutor owner;
    private static EventExecutor other;

    @BeforeAll
    static void start() {
        group = EventExecutors.newGroup(2, "recycler-test");
        owner = group.next();
        other = group.next();
    }

    @AfterAll
    static void stop() throws InterruptedException {
        assertTrue(group.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS));
    }

    private static <T> T on(EventExecutor loop, Callable<T> c) throws Exception {
        return loop.submit(c).get(5, TimeUnit.SECONDS);
    }

    @Test
    void sameThreadRecyclingReusesTheObject() throws Exception {
        PooledRecycler r = new PooledRecycler();
        assertEquals(Recycler.DEFAULT_MAX_CAPACITY_PER_THREAD, r.maxCapacityPerThread());
        on(owner, () -> {
            Pooled a = r.get();
            a.recycle();
            assertEquals(1, r.pooledOnCurrentThread());
            assertSame(a, r.get());
            assertNotSame(a, r.get());
            assertEquals(2, r.created);
            return null;
        });
    }

    @Test
    void objectRecycledOnAnotherThreadIsReusedByItsOwner() throws Exception {
        PooledRecycler r = new PooledRecycler();
        Pooled a = on(owner, r::get);
        on(other, () -> {
            a.recycle();
            return null;
        });
        Pooled fromTestThread = on(owner, r::get); // drains the cross-thread queue
        assertSame(a, fromTestThread);
        Pooled b = on(owner, r::get);
        b.recycle(); // from the test thread: not a loop thread, still goes back to the owner
        assertSame(b, on(owner, r::get));
    }

    @Test
    void capacityBoundIsRespectedForSameAndCrossThreadRecycling() throws Exception {
        PooledRecycler r = new PooledRecycler(4);
        on(owner, () -> {
            List<Pooled> taken = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                taken.add(r.get());
            }
            taken.forEach(Pooled::recycle);
            assertEquals(4, r.pooledOnCurrentThread());
            Set<Pooled> old = Collections.newSetFromMap(new IdentityHashMap<>());
            old.addAll(taken);
            int reused = 0;
            for (int i = 0; i < 10; i++) {
                if (old.contains(r.get())) {
                    reused++;
                }
            }
            assertEquals(4, reused);
            return null;
        });
        List<Pooled> taken = on(owner, () -> {
            List<Pooled> l = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                l.add(r.get());
            }
            return l;
        });
        taken.forEach(Pooled::recycle); // test thread: into the owner's bounded queue
        int reused = on(owner, () -> {
            Set<Pooled> old = Collections.newSetFromMap(new IdentityHashMap<>());
            old.addAll(taken);
            int n = 0;
            for (int i = 0; i < 10; i++) {
                if (old.contains(r.get())) {
                    n++;
                }
            }
            return n;
        });
        assertEquals(4, reused);
    }

    @Test
    void capacityZeroDisablesPooling() throws Exception {
        PooledRecycler r = new PooledRecycler(0);
        on(owner, () -> {
            Pooled a = r.get();
            a.recycle();
            assertNotSame(a, r.get());
            assertEquals(0, r.pooledOnCurrentThread());
            assertThrows(IllegalStateException.class, a::recycle);
            return null;
        });
    }

    @Test
    void propertyValueIsParsedWithZeroDisablingAndBadValuesRejectedNamingTheProperty() {
        assertEquals(Recycler.DEFAULT_MAX_CAPACITY_PER_THREAD, Recycler.maxCapacityFrom(null));
        assertEquals(0, Recycler.maxCapacityFrom("0"));
        assertEquals(17, Recycler.maxCapacityFrom(" 17 "));
        for (String bad : new String[] {"-1", "lots", " "}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> Recycler.maxCapacityFrom(bad), bad);
            assertTrue(e.getMessage().contains("conduit.recycler.maxCapacityPerThread='" + bad + "'")
                    && e.getMessage().contains("a whole number from 0"), e.getMessage());
        }
        assertEquals("conduit.recycler.maxCapacityPerThread", Recycler.MAX_CAPACITY_PROPERTY);
        assertThrows(IllegalArgumentException.class, () -> new PooledRecycler(-1));
    }

    @Test
    void nonLoopThreadsDoNotPool() {
        PooledRecycler r = new PooledRecycler();
        Pooled a = r.get();
        a.recycle();
        assertNotSame(a, r.get());
        assertEquals(0, r.pooledOnCurrentThread());
    }

    @Test
    void recyclingTwiceThrowsIllegalStateException() throws Exception {
        PooledRecycler r = new PooledRecycler();
        String message = on(owner, () -> {
            Pooled a = r.get();
            a.recycle();
            return assertThrows(IllegalStateException.class, a::recycle).getMessage();
        });
        assertTrue(message.contains("recycled twice"), message);
        Pooled unpooled = r.get(); // test thread: not pooled, still checked
        unpooled.recycle();
        assertThrows(IllegalStateException.class, unpooled::recycle);
        Pooled fromOwner = on(owner, r::get);
        fromOwner.recycle();
        assertThrows(IllegalStateException.class, fromOwner::recycle);
    }

    @Test
    void recyclingWithAnotherObjectsHandleIsRejected() {
        PooledRecycler r = new PooledRecycler();
        Pooled a = r.get();
        Pooled b = r.get();
        assertThrows(IllegalArgumentException.class, () -> a.handle.recycle(b));
    }

    @Test
    void recyclingAfterTheOwnerLoopTerminatedIsHarmless() throws Exception {
        PooledRecycler r = new PooledRecycler();
        EventLoopGroup g = EventExecutors.newGroup(1, "recycler-gone");
        Pooled a = g.next().submit(r::get).get(5, TimeUnit.SECONDS);
        assertTrue(g.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS));
        assertDoesNotThrow(a::recycle);
    }
}
