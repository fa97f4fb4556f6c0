package io.conduit.internal.channel;

import java.util.concurrent.atomic.AtomicInteger;

import io.conduit.buffer.IllegalReferenceCountException;
import io.conduit.buffer.ReferenceCounted;

/** A minimal reference-counted message for tests. */
final class TestMessage implements ReferenceCounted {
    private final AtomicInteger refCnt = new AtomicInteger(1);
    final String text;

    TestMessage(String text) {
        this.text = text;
    }

    @Override
    public int refCnt() {
        return refCnt.get();
    }

    @Override
    public ReferenceCounted retain() {
        return retain(1);
    }

    @Override
    public ReferenceCounted retain(int increment) {
        refCnt.updateAndGet(c -> {
            if (c <= 0) {
                throw new IllegalReferenceCountException("retain of freed " + text);
            }
            return c + increment;
        });
        return this;
    }

    @Override
    public boolean release() {
        return release(1);
    }

    @Override
    public boolean release(int decrement) {
        int after = refCnt.updateAndGet(c -> {
            if (c < decrement) {
                throw new IllegalReferenceCountException("release of freed " + text);
            }
            return c - decrement;
        });
        return after == 0;
    }

    @Override
    public ReferenceCounted touch(Object hint) {
        return this;
    }

    @Override
    public String toString() {
        return "TestMessage(" + text + ")";
    }
}
