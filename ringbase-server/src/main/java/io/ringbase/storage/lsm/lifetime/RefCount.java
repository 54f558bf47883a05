package io.ringbase.storage.lsm.lifetime;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A reference count that starts at one (its creator's reference) and, once it reaches zero, stays there:
 * no reference can be taken again. Views, memtables and SSTable readers use it to free native memory and
 * unmap files exactly when their last user is done (RocksDB's {@code Version} refs, Cassandra's
 * {@code Ref}). Thread-safe, lock-free.
 */
public final class RefCount {

    private final AtomicInteger refs = new AtomicInteger(1);

    /**
     * Takes a reference unless the count already reached zero.
     *
     * @return whether a reference was taken; if so, a {@link #release(String)} must follow
     */
    public boolean tryRetain() {
        while (true) {
            int r = refs.get();
            if (r <= 0) {
                return false;
            }
            if (refs.compareAndSet(r, r + 1)) {
                return true;
            }
        }
    }

    /**
     * Gives a reference back.
     *
     * @param what names the owner in the error, e.g. "memtable"
     * @return whether that was the last one: the caller frees what the count guards
     * @throws IllegalStateException if released more often than retained
     */
    public boolean release(String what) {
        int r = refs.decrementAndGet();
        if (r < 0) {
            throw new IllegalStateException(what + " released more often than retained");
        }
        return r == 0;
    }
}
