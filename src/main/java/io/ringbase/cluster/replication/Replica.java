package io.ringbase.cluster.replication;

import io.ringbase.cluster.NodeId;
import io.ringbase.storage.Entry;
import java.util.concurrent.CompletableFuture;

/**
 * One node's store as the coordinator sees it: the local engine ({@link LocalReplica}, called directly)
 * or a remote node over the internal API ({@code io.ringbase.cluster.client.RemoteReplica}).
 *
 * <p>Every call is non-blocking for remote replicas: the future completes on a client event loop.
 * Failures complete the future exceptionally with a {@link ReplicaException}:
 * {@link ReplicaException.Unreachable} (no connection could be made: nothing was sent),
 * {@link ReplicaException.Timeout} (no answer in time: the request may have been applied) or
 * {@link ReplicaException.Failed} (the replica answered with an error). Callers must not block on a
 * future on an event loop thread.
 */
public interface Replica {

    /** The node this replica lives on. */
    NodeId node();

    /**
     * The newest entry the replica stores for {@code key}, including a tombstone or an expired entry
     * (the coordinator needs their versions), or {@code null} if it holds none.
     */
    CompletableFuture<Entry> read(byte[] key);

    /**
     * Stores {@code entry} with its version and expiry as given; an older version than the stored one
     * changes nothing. Completes when the replica has made it durable (its WAL policy).
     */
    CompletableFuture<Void> write(Entry entry);

    /**
     * {@link #write}, then reports the version the replica holds for the key afterwards: the written
     * one, or a newer one it already had. The coordinator uses it to notice that a write it versioned
     * lost to one it had not seen (its clock was behind), see {@link Coordinator#write}.
     */
    default CompletableFuture<Long> writeChecked(Entry entry) {
        return write(entry).thenApply(v -> entry.version());
    }

    /**
     * One page of the replica's entries with {@code start <= key < end} in key order, tombstones and
     * expired entries included.
     *
     * @param start    inclusive lower bound
     * @param end      exclusive upper bound, or {@code null} for none
     * @param maxBytes the page stops after the entry that takes it past about this many encoded bytes
     *                 (so a page holds at least one entry if any is left)
     */
    CompletableFuture<EntryPage> scan(byte[] start, byte[] end, int maxBytes);

    /** Completes normally if the replica answers at all (a liveness probe). */
    CompletableFuture<Void> probe();
}
