package io.ringbase.cluster.proxy;

import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.clock.TimeSource;
import io.ringbase.cluster.paxos.PaxosProposer;
import io.ringbase.cluster.replication.Coordinator;
import io.ringbase.cluster.replication.Replica;
import io.ringbase.cluster.ring.Placement;
import io.ringbase.cluster.ring.Ring;
import io.ringbase.cluster.ring.ShareFilter;
import io.ringbase.cluster.scan.ClusterScan;
import io.ringbase.kv.CasResult;
import io.ringbase.kv.Condition;
import io.ringbase.kv.EntryBatchSource;
import io.ringbase.kv.KeyValueService;
import io.ringbase.kv.LocalBatchSource;
import io.ringbase.kv.Quorum;
import io.ringbase.kv.QuorumException;
import io.ringbase.kv.ScanShare;
import io.ringbase.kv.Versioned;
import io.ringbase.storage.ContentType;
import io.ringbase.storage.Entry;
import io.ringbase.storage.ReadCursor;
import io.ringbase.storage.StorageEngine;
import io.ringbase.storage.WriteBatch;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import org.jspecify.annotations.Nullable;

/**
 * The key-value service of a node in a cluster of more than one: each request is coordinated over the
 * key's replicas by the {@link Coordinator} (quorum reads with read repair, writes with hints), and a
 * range scan merges the pages of enough nodes to see every key written with the default quorum
 * ({@link ClusterScan}). It has no inline path: point requests always go through the coordinator, whose
 * calls never block a read's thread (replica calls are asynchronous, the local replica hands disk waits to
 * its own threads). Thread-safe.
 */
public final class ClusterKeyValueService implements KeyValueService {

    private final Coordinator coordinator;
    private final StorageEngine engine;
    private final HybridLogicalClock clock;
    private final TimeSource time;
    private final PaxosProposer paxos;

    /**
     * @param coordinator coordinates requests over the cluster's replicas
     * @param engine      this node's engine: local scans ({@code local=true}), its writability
     * @param clock       stamps every write's version
     * @param time        decides whether a value has expired
     * @param paxos       runs conditional writes ({@link #writeIf})
     */
    public ClusterKeyValueService(
            Coordinator coordinator,
            StorageEngine engine,
            HybridLogicalClock clock,
            TimeSource time,
            PaxosProposer paxos) {
        this.paxos = paxos;
        this.coordinator = coordinator;
        this.engine = engine;
        this.clock = clock;
        this.time = time;
    }

    @Override
    public int replicationFactor() {
        return coordinator.placement().replicationFactor();
    }

    @Override
    public boolean servesPointRequestsInline() {
        return false;
    }

    @Override
    public InlineRead tryRead(byte[] key, ReadCursor cursor) {
        throw new UnsupportedOperationException("a cluster's reads go through the coordinator");
    }

    @Override
    public long tryWrite(byte[] key, long expiresAtMs, @Nullable MemorySegment value) {
        throw new UnsupportedOperationException("a cluster's writes go through the coordinator");
    }

    @Override
    public void stage(WriteBatch batch, byte[] key, long expiresAtMs, @Nullable MemorySegment value) {
        throw new UnsupportedOperationException("a cluster's writes go through the coordinator");
    }

    @Override
    public boolean tryApplyStaged(WriteBatch batch) {
        throw new UnsupportedOperationException("a cluster's writes go through the coordinator");
    }

    @Override
    public boolean callsMayBlock(boolean write) {
        // a coordinated read never waits; a write may, when this node's own engine could not take it at once
        return write && engine.writeMayBlock();
    }

    @Override
    public CompletionStage<@Nullable Versioned> get(byte[] key, Quorum quorum) {
        return coordinator
                .read(key, quorum.ack(), quorum.from())
                .thenApply(e -> e == null || !e.isLive(time.currentTimeMillis()) ? null : Versioned.of(e));
    }

    @Override
    public CompletionStage<Long> put(byte[] key, MemorySegment value, long expiresAtMs, Quorum quorum) {
        byte[] copy = value.toArray(ValueLayout.JAVA_BYTE); // replicas and hints keep the array
        return coordinator.write(new Entry(key, clock.now(), expiresAtMs, copy), quorum.ack(), quorum.from());
    }

    @Override
    public CompletionStage<Long> put(
            byte[] key, MemorySegment value, @Nullable String contentType, long expiresAtMs, Quorum quorum) {
        if (contentType == null) {
            return put(key, value, expiresAtMs, quorum);
        }
        Entry typed;
        try {
            typed = Entry.typed(key, clock.now(), expiresAtMs, contentType, value);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        return coordinator.write(typed, quorum.ack(), quorum.from());
    }

    @Override
    public CompletionStage<Long> delete(byte[] key, Quorum quorum) {
        return coordinator.write(Entry.tombstone(key, clock.now()), quorum.ack(), quorum.from());
    }

    @Override
    public CompletionStage<CasResult> writeIf(
            byte[] key,
            @Nullable MemorySegment value,
            @Nullable String contentType,
            long expiresAtMs,
            Condition condition,
            Quorum quorum) {
        int rf = replicationFactor();
        if (quorum.from() > rf) {
            return CompletableFuture.failedFuture(
                    new IllegalArgumentException("from=" + quorum.from() + " is above the replication factor " + rf));
        }
        // a Paxos round over all the key's replicas, whatever the quorum asked: its majorities are what
        // make compare-and-set linearizable
        if (value != null && contentType != null) {
            byte[] stored;
            try {
                stored = ContentType.prefixed(contentType, value);
            } catch (IllegalArgumentException e) {
                return CompletableFuture.failedFuture(e);
            }
            return paxos.cas(key, stored, true, expiresAtMs, condition);
        }
        byte[] copy = value == null ? null : value.toArray(ValueLayout.JAVA_BYTE);
        return paxos.cas(key, copy, expiresAtMs, condition);
    }

    @Override
    public CompletionStage<@Nullable Entry> readEntry(byte[] key, Quorum quorum) {
        return coordinator.read(key, quorum.ack(), quorum.from());
    }

    @Override
    public CompletionStage<Void> writeVersioned(Entry entry, Quorum quorum) {
        return coordinator.writeAsVersioned(entry, quorum.ack(), quorum.from());
    }

    @Override
    public EntryBatchSource scan(byte[] start, byte @Nullable [] end, boolean localOnly)
            throws QuorumException, IOException {
        if (localOnly) {
            return new LocalBatchSource(engine.scan(start, end, true));
        }
        return clusterScan(start, end, null);
    }

    /**
     * The cluster scan with each replica asked for the share's keys only (docs/functions.md, "How a job is
     * distributed"): the share's own node and the others filter alike, so the merge still sees every key
     * of the share written with the default quorum.
     *
     * @throws IllegalArgumentException if the share is of another placement epoch or names a node not in
     *                                  the ring
     */
    @Override
    public EntryBatchSource scan(byte[] start, byte @Nullable [] end, ScanShare share)
            throws QuorumException, IOException {
        return clusterScan(start, end, ShareFilter.of(coordinator.placement(), share));
    }

    private EntryBatchSource clusterScan(byte[] start, byte @Nullable [] end, @Nullable ShareFilter share)
            throws QuorumException, IOException {
        Placement placement = coordinator.placement();
        Ring ring = placement.current(); // a node that joins holds none of its keys yet: only the current ring counts
        int rf = placement.replicationFactor();
        int nodes = ring.size();
        int needed = scanNodesNeeded(nodes, rf);
        List<Replica> up =
                upReplicas(needed).stream().filter(r -> ring.contains(r.node())).toList();
        if (up.size() < needed) {
            throw new QuorumException.Unavailable(needed, nodes, up.size());
        }
        return new ClusterScan(
                up,
                start,
                end,
                time,
                ClusterScan.DEFAULT_PAGE_BYTES,
                (node, key) -> ring.isReplica(Ring.keyHash(key), rf, node),
                share);
    }

    /**
     * How many of {@code nodes} nodes a cluster scan must merge so that it sees every key written with
     * the default quorum ({@code majority(rf)} of the key's {@code rf} replicas), whichever nodes are
     * missing: {@code nodes - majority(rf) + 1}. A scan that misses m nodes misses m of some key's
     * replicas (rendezvous order puts any {@code m <= rf} nodes first for some keys), and that key's write
     * may be on exactly those when {@code m >= majority(rf)}. With {@code rf = nodes} this is the read quorum
     * {@code rf - majority(rf) + 1} of the course's semantics.
     */
    static int scanNodesNeeded(int nodes, int rf) {
        return nodes - Quorum.majority(rf) + 1;
    }

    /**
     * How many of {@code nodes} nodes must be up for every key to reach the default quorum: a key keeps
     * {@code rf - m} replicas when m nodes are down, all of them its own in the worst case, so at most
     * {@code rf - majority(rf)} may be down. With {@code rf = nodes} this is {@code majority(nodes)}.
     */
    static int readyNodesNeeded(int nodes, int rf) {
        return nodes - (rf - Quorum.majority(rf));
    }

    /** The replicas up, probing believed-down ones first when fewer than {@code needed}; blocks (a worker). */
    private List<Replica> upReplicas(int needed) throws IOException {
        try {
            return coordinator.upReplicas(needed).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while probing replicas");
        } catch (ExecutionException e) {
            throw new IOException("probing replicas failed", e.getCause());
        }
    }

    @Override
    public @Nullable String notReadyReason() {
        String engineReason = engine.unwritableReason();
        if (engineReason != null) {
            return engineReason;
        }
        Ring ring = coordinator.placement().current();
        int n = ring.size();
        int needed = readyNodesNeeded(n, replicationFactor());
        int up = (int) coordinator.upReplicas().stream()
                .filter(r -> ring.contains(r.node()))
                .count();
        return up < needed ? up + " of " + n + " nodes reachable, " + needed + " needed for the default quorum" : null;
    }
}
