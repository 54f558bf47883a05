package io.ringbase.cluster.replication;

import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.ring.ShareFilter;
import io.ringbase.storage.Entry;
import java.util.concurrent.CompletableFuture;

/**
 * One node's store as the coordinator sees it: the local engine ({@link LocalReplica}, called directly)
 * or a remote node over the internal API ({@code io.ringbase.cluster.rpc.RemoteReplica}).
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

    /** What {@link #version} completes with when the replica holds nothing for the key. */
    long NO_VERSION = Long.MIN_VALUE;

    /**
     * The version of the newest entry the replica stores for {@code key} (a tombstone's and an expired
     * entry's included), or {@link #NO_VERSION}: what {@link #read} would answer, without the value.
     * The first phase of a quorum write ({@link Coordinator#write}).
     */
    default CompletableFuture<Long> version(byte[] key) {
        return read(key).thenApply(e -> e == null ? NO_VERSION : e.version());
    }

    /**
     * Stores {@code entry} with its version and expiry as given; an older version than the stored one
     * changes nothing. Completes when the replica has made it durable (its WAL policy).
     */
    CompletableFuture<Void> write(Entry entry);

    /**
     * {@link #write}, then reports whether the written entry won: {@link #writeResult} of it against the
     * entry the replica holds afterwards. The coordinator uses it to notice that a write it versioned
     * lost to one it had not seen (its clock was behind, or another coordinator's clock issued the same
     * version), see {@link Coordinator#write}.
     */
    default CompletableFuture<Long> writeChecked(Entry entry) {
        return write(entry).thenApply(v -> entry.version());
    }

    /**
     * What a replica reports after writing {@code written} while holding {@code held} for that key:
     * {@code written.version()} when {@code written} is (equal to) what it holds, else a version above
     * {@code written.version()} that a rewrite must exceed to win. That is the held version when it is
     * higher, or the held version + 1 when a different entry holds the very same version and wins the
     * tie ({@link Entry#compareNewness}: tombstone first, then greater value). Two coordinators' clocks
     * can issue equal versions, so ties between different writes do happen.
     *
     * @param held the entry held afterwards, or {@code null} if none
     */
    static long writeResult(Entry written, Entry held) {
        if (held == null || Entry.compareNewness(held, written) <= 0) {
            return written.version();
        }
        return held.version() > written.version() ? held.version() : written.version() + 1;
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

    /**
     * As {@link #scan(byte[], byte[], int)}, of the keys {@code share} keeps only: the others are left out
     * before they count toward {@code maxBytes}, so a node running one share of a distributed job receives
     * that share's entries, not the range's. A replica may send keys outside the share (the default, for
     * replicas that cannot filter, and a peer of an older version, which ignores the share): the caller
     * filters them again.
     */
    default CompletableFuture<EntryPage> scan(byte[] start, byte[] end, int maxBytes, ShareFilter share) {
        return scan(start, end, maxBytes);
    }

    /** Completes normally if the replica answers at all (a liveness probe). */
    CompletableFuture<Void> probe();

    /**
     * A liveness probe that also tells whether the replica's engine can take writes (the internal ping;
     * docs/design.md, "Ping health"): completes with {@code null} when it can, else with the replica's short
     * reason (its {@link io.ringbase.storage.StorageEngine#unwritableReason()}: closed, a failed WAL);
     * fails as {@link #probe()} does when the replica does not answer. The default, for replicas that
     * cannot tell, is {@link #probe()} taken as writable.
     */
    default CompletableFuture<String> ping() {
        return probe().thenApply(v -> null);
    }

    /**
     * Sends one Paxos message (the encoding of {@code io.ringbase.cluster.paxos.PaxosMessages}) to the
     * replica's acceptor and completes with its encoded reply: the node-to-node {@code PAXOS} call. The
     * default, for replicas that take no part (the local one is called directly by the proposer), fails.
     */
    default CompletableFuture<byte[]> paxos(byte[] message) {
        return CompletableFuture.failedFuture(
                new ReplicaException.Failed(node(), "this replica takes no Paxos calls", null));
    }
}
