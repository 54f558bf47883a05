package io.ringbase.storage.lsm.wal;

import io.ringbase.storage.WriteBatch;
import java.io.IOException;
import java.lang.foreign.MemorySegment;

/**
 * One caller waiting in a {@link WalWriter}'s queue: an entry to append (its parts), entries {@code from}
 * (inclusive) to {@code to} of a {@link WriteBatch} ({@code many != null}), or ({@code key == null}
 * and {@code many == null}) an fsync request. One per thread, reused: a thread is in at most one queue at
 * a time. Its fields are written by its thread before it joins the queue and by the leader that serves
 * it, under the writer's lock.
 */
final class WalWaiter {
    final Thread thread = Thread.currentThread();
    byte[] key;
    long version;
    long expiresAtMs;
    MemorySegment value;
    boolean typed;
    WriteBatch many;
    int from;
    int to;
    int recordSize;
    boolean forceSync;
    boolean done;
    IOException error;

    void set(
            byte[] key,
            long version,
            long expiresAtMs,
            MemorySegment value,
            boolean typed,
            int recordSize,
            boolean forceSync) {
        this.key = key;
        this.version = version;
        this.expiresAtMs = expiresAtMs;
        this.value = value;
        this.typed = typed;
        this.many = null;
        this.recordSize = recordSize;
        this.forceSync = forceSync;
        this.done = false;
        this.error = null;
    }

    void setMany(WriteBatch batch, int from, int to, int recordSize) {
        set(null, 0, 0, null, false, recordSize, false);
        this.many = batch;
        this.from = from;
        this.to = to;
    }

    void clear() {
        key = null;
        value = null;
        many = null;
    }
}
