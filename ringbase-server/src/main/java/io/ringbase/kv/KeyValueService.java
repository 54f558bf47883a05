package io.ringbase.kv;

import io.ringbase.storage.ReadCursor;
import io.ringbase.storage.WriteBatch;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * The key-value service a node offers its clients: point reads and writes with per-request quorums, and
 * range scans. The public API calls only this and never learns whether the node is alone: a node alone is
 * a cluster of one with replication factor 1 ({@link LocalKeyValueService}), as Cassandra's
 * {@code StorageProxy} serves every replication factor; a node of a larger cluster coordinates each
 * request over the key's replicas ({@code cluster.proxy.StorageProxy}). Which one a node runs is decided
 * in one place, where the node is assembled.
 *
 * <p>Two paths:
 * <ul>
 *   <li>the <b>inline path</b>, for an I/O thread that must never wait: {@link #tryRead}, {@link #tryWrite},
 *       {@link #stage} and {@link #tryApplyStaged} answer from this node's own engine alone, zero-copy,
 *       or decline (nothing done) when that would mean waiting. Only a service whose
 *       {@link #servesPointRequestsInline()} is true offers it;</li>
 *   <li>the <b>general path</b> ({@link #get}, {@link #put}, {@link #delete}, {@link #scan}), which any
 *       service offers: its futures complete when the request's quorum is met. Whether a call may block
 *       its thread is {@link #callsMayBlock}.</li>
 * </ul>
 * Versions are stamped here (hybrid logical clock), never by the caller.
 *
 * <p>Failures: {@link IOException} from the engine ({@code StorageFaultException}, {@code StoreBusyException},
 * ...), thrown or completing the future; {@link QuorumException} when too few replicas answer. Thread-safe.
 */
public interface KeyValueService {

    /** What an inline read found. */
    enum InlineRead {
        /** A live value: the cursor points at it. */
        LIVE,
        /** No live value: never written, deleted, or expired. */
        MISSING,
        /** Answering would wait for the disk; nothing is pinned. Use the general path. */
        WOULD_WAIT
    }

    /** The replication factor: the largest {@code from} a request may ask for, and its default. */
    int replicationFactor();

    /** The default quorum of a request that names neither: {@code from} = replication factor, {@code ack} a majority. */
    default Quorum defaultQuorum() {
        return new Quorum(Quorum.majority(replicationFactor()), replicationFactor());
    }

    /**
     * Whether point requests can be answered from this node's engine alone on an I/O thread (every key's
     * only replica is this node), through {@link #tryRead}, {@link #tryWrite}, {@link #stage} and
     * {@link #tryApplyStaged}. Fixed for the service's life.
     */
    boolean servesPointRequestsInline();

    /**
     * Reads {@code key} without waiting, into {@code cursor}, which the caller closes after copying the
     * value out. Only when {@link #servesPointRequestsInline()}.
     *
     * @throws IOException as the engine's read
     */
    InlineRead tryRead(byte[] key, ReadCursor cursor) throws IOException;

    /** What {@link #tryWrite} returns when it wrote nothing (the engine would have had to wait). */
    long NOT_WRITTEN = Long.MIN_VALUE;

    /**
     * Writes {@code value} (or a tombstone if {@code null}) for {@code key} without waiting, zero-copy from
     * {@code value}'s memory. Only when {@link #servesPointRequestsInline()}.
     *
     * @param expiresAtMs Unix ms after which the value is gone, or {@code Entry.NO_EXPIRY}
     * @return the version written, or {@link #NOT_WRITTEN}: nothing was, the engine would have had to wait
     * @throws IOException as the engine's write (nothing written)
     */
    long tryWrite(byte[] key, long expiresAtMs, @Nullable MemorySegment value) throws IOException;

    /**
     * Adds a write of {@code value} (a tombstone if {@code null}) to {@code batch} with a fresh version,
     * after {@link WriteBatch#fits}; {@link #tryApplyStaged} writes the batch. Only when
     * {@link #servesPointRequestsInline()}.
     */
    void stage(WriteBatch batch, byte[] key, long expiresAtMs, @Nullable MemorySegment value);

    /**
     * Writes what {@code batch} holds beyond {@link WriteBatch#applied()}, as far as the engine can without
     * waiting (group commit: one WAL write for all).
     *
     * @return whether all of it was written; if not, the rest would have had to wait
     * @throws IOException if the WAL write failed: nothing of the remaining writes was applied
     */
    boolean tryApplyStaged(WriteBatch batch) throws IOException;

    /**
     * Whether a general-path call may block its thread, so that an I/O thread must not make it:
     * {@code write} for {@link #put} and {@link #delete}, else {@link #get}. {@link #scan} always may.
     */
    boolean callsMayBlock(boolean write);

    /**
     * The live value of {@code key} with its version, or {@code null} if it has none (never written,
     * deleted, expired).
     *
     * @throws IllegalArgumentException if {@code quorum.from()} is above {@link #replicationFactor()}
     */
    CompletionStage<@Nullable Versioned> get(byte[] key, Quorum quorum);

    /**
     * Stores {@code value} under {@code key}; the value's memory is read before this returns (copied if it
     * must outlive the call). Completes with the version written.
     *
     * @param expiresAtMs Unix ms after which the value is gone, or {@code Entry.NO_EXPIRY}
     */
    CompletionStage<Long> put(byte[] key, MemorySegment value, long expiresAtMs, Quorum quorum);

    /**
     * {@link #put(byte[], MemorySegment, long, Quorum)} with a content type stored beside the value and
     * served back by {@link #get} ({@code null}: untyped, as that method). A typed value takes the general
     * path: it is stored with a {@code storage.ContentType} prefix, which costs a copy.
     *
     * @param contentType a valid type ({@code ContentType.invalidReason} is {@code null}), or {@code null}
     * @throws IllegalArgumentException if {@code contentType} is not valid (completing the future)
     */
    CompletionStage<Long> put(
            byte[] key, MemorySegment value, @Nullable String contentType, long expiresAtMs, Quorum quorum);

    /** Deletes {@code key} (writes a tombstone); completes with the tombstone's version. */
    CompletionStage<Long> delete(byte[] key, Quorum quorum);

    /**
     * Writes {@code value} (a tombstone if {@code null}) under {@code key} only if {@code condition}
     * holds against the key's current value, atomically: no other conditional write of the key comes
     * between the check and the write. Unconditional writes ({@link #put}, {@link #delete}) of the same
     * key do not take part and may come between (as in Cassandra, mixing them with conditional writes of
     * one key gives up the guarantee). The value's memory is read before this returns.
     *
     * <p>A node alone checks and writes under a lock of the key's stripe; a cluster runs one round of
     * Paxos for the key over its replicas ({@code cluster.paxos}), whatever {@code quorum} says (its
     * {@code from} must still fit the replication factor).
     *
     * @param expiresAtMs Unix ms after which the value is gone, or {@code Entry.NO_EXPIRY}
     * @return whether it was written and the version written, or the version that failed the condition
     * @throws IllegalArgumentException if {@code quorum.from()} is above {@link #replicationFactor()}
     */
    default CompletionStage<CasResult> writeIf(
            byte[] key, @Nullable MemorySegment value, long expiresAtMs, Condition condition, Quorum quorum) {
        return writeIf(key, value, null, expiresAtMs, condition, quorum);
    }

    /**
     * {@link #writeIf(byte[], MemorySegment, long, Condition, Quorum)} of a value with a content type
     * ({@code null}: untyped), as {@link #put(byte[], MemorySegment, String, long, Quorum)}.
     */
    CompletionStage<CasResult> writeIf(
            byte[] key,
            @Nullable MemorySegment value,
            @Nullable String contentType,
            long expiresAtMs,
            Condition condition,
            Quorum quorum);

    /**
     * The newest entry of {@code key} with its version, a tombstone included, by a read of {@code quorum}
     * ({@code null} if no replica asked has the key). What a conditional write back starts from
     * (server-side {@code update}, docs/functions.md).
     *
     * @throws IllegalArgumentException if {@code quorum.from()} is above {@link #replicationFactor()}
     */
    CompletionStage<io.ringbase.storage.@Nullable Entry> readEntry(byte[] key, Quorum quorum);

    /**
     * Writes {@code entry} with exactly its own version, never re-versioned (unlike {@link #put}): a replica
     * holding a newer version of the key keeps it, so the write takes effect only where nothing newer was
     * written. Completes once {@code quorum.ack()} replicas have answered, whether or not they stored it:
     * read the key back to learn which version won.
     */
    CompletionStage<Void> writeVersioned(io.ringbase.storage.Entry entry, Quorum quorum);

    /**
     * Every live entry with {@code start <= key < end} in key order ({@code end} {@code null}: to the last
     * key), as a stream the caller closes. Blocks (call it from a worker).
     *
     * @param localOnly only this node's own data ({@code local=true}), not the cluster's
     * @throws QuorumException if too few replicas are up to cover the range
     * @throws IOException as the engine's scan
     */
    EntryBatchSource scan(byte[] start, byte @Nullable [] end, boolean localOnly) throws QuorumException, IOException;

    /**
     * The cluster's live entries of {@code [start, end)}, as {@link #scan scan(start, end, false)}, where
     * keys outside {@code share} may be left out: a cluster asks each replica for the share's keys only,
     * so that a node running one share of a job moves that share's entries, not the range's. Every key of
     * the share is still there (the filter depends only on the key and the share, so every replica keeps
     * the same keys); keys outside it may be there too (a node alone, or a peer of an older version),
     * and the caller filters them. The default, for services without replicas, is the plain scan.
     *
     * @throws IllegalArgumentException if the share does not fit this node's placement (another epoch, a
     *                                  node not in the ring)
     * @throws QuorumException          if too few replicas are up to cover the range
     * @throws IOException              as the engine's scan
     */
    default EntryBatchSource scan(byte[] start, byte @Nullable [] end, ScanShare share)
            throws QuorumException, IOException {
        return scan(start, end, false);
    }

    /**
     * Why requests cannot be served now, or {@code null} if they can: the engine's reason (disk full, a
     * failed WAL), or in a cluster fewer nodes reachable than a default-quorum request needs.
     */
    @Nullable
    String notReadyReason();
}
