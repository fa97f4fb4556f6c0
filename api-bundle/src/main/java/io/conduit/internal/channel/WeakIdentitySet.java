package io.conduit.internal.channel;

import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.HashMap;

/** A set of objects by identity that holds them weakly; thread-safe. */
final class WeakIdentitySet {
    private final ReferenceQueue<Object> queue = new ReferenceQueue<>();
    private final HashMap<Key, Key> map = new HashMap<>(); // guarded by this

    private static final class Key extends WeakReference<Object> {
        private final int hash;

        Key(Object referent, ReferenceQueue<Object> queue) {
            super(referent, queue);
            hash = System.identityHashCode(referent);
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object o) {
            if (this == o) {
                return true;
            }
            if (!(o instanceof Key k) || k.hash != hash) {
                return false;
            }
            Object referent = get();
            return referent != null && referent == k.get();
        }
    }

    synchronized boolean add(Object o) {
        expunge();
        Key key = new Key(o, queue);
        return map.putIfAbsent(key, key) == null;
    }

    synchronized void remove(Object o) {
        expunge();
        Key probe = new Key(o, null);
        map.remove(probe);
        probe.clear();
    }

    private void expunge() {
        for (Object ref; (ref = queue.poll()) != null;) {
            map.remove(ref);
        }
    }
}
