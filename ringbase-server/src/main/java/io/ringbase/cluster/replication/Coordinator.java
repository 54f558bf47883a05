package io.ringbase.cluster.replication;

import io.ringbase.clock.ClockOffsetException;
import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.clock.TimeSource;
import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.Topology;
import io.ringbase.cluster.ring.Placement;
import io.ringbase.cluster.ring.Ring;
import io.ringbase.kv.QuorumException;
import io.ringbase.storage.Entry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator of a request (any node, for any key), after Dynamo §4.5 with Cassandra's safer
 * choices: it sends a write to the key's first {@code from} replicas ({@link Ring}) in parallel (the
 * local one directly, the others over the internal API) and completes as soon as {@code ack} of them
 * have answered, never waiting for the slowest. A read goes to as many of them as its
 * {@link SpeculativeRetry} policy says (by default {@code ack}: this node first, replicas marked slow
 * last), and to one more whenever one asked fails or the policy's delay passes without {@code ack}
 * answers (Cassandra's speculative retry).
 *
 * <ul>
 *   <li><b>Unavailable.</b> A request is never refused on the failure detector's belief alone. When
 *       fewer than {@code ack} of the replicas are believed up ({@link Liveness}), the believed-down ones
 *       are probed first (one probe in flight per node, shared by every request that needs it); a node
 *       that answers is up again and the request goes ahead. Only when fewer than {@code ack} are up
 *       after probing is the request sent to none and failed with {@link QuorumException.Unavailable}:
 *       nothing was written.</li>
 *   <li><b>Not enough answers.</b> When so many replicas failed or timed out that {@code ack} answers
 *       cannot be had, it fails with {@link QuorumException.NotEnoughAnswers}: a write may have landed.</li>
 *   <li><b>Unwritable replicas.</b> A replica whose last ping said its engine cannot take writes
 *       ({@link Replica#ping()}, {@link Liveness#isUpForWrites}) counts as down for writes: a write
 *       hints it instead of sending, and probes it like a down one when fewer than {@code ack} others
 *       remain. Reads still go to it. A replica write answered with an error pings that replica (one
 *       ping in flight per node), so a busy node whose disk failed is known within one round trip.</li>
 *   <li><b>Hints.</b> A write's replicas that are down or did not answer get a hint ({@link HintSink});
 *       hints never count toward {@code ack}. A write goes to exactly the {@code from} replicas. A write
 *       that succeeds answers only once the hints handed over before its {@code ack}-th answer are
 *       stored ({@link HintSink#hint} completed): a crash right after the answer loses none of them. A
 *       replica that fails or times out after the answer gets its hint later, with no such wait.</li>
 *   <li><b>Reads</b> return the newest answer ({@link Entry#compareNewness}: version, then tombstone
 *       first, then value bytes), tombstones and expired entries included: the caller decides what is
 *       live. <b>Read repair</b> ({@link ReadRepair}): a quorum read ({@code ack > from/2}) whose answers
 *       differ writes the newest back until {@code ack} replicas hold it before it answers (so quorum
 *       reads never go backwards: ABD); other reads repair the stale replicas in the background once
 *       every replica asked has answered, without delaying the response.</li>
 *   <li><b>Quorum writes</b> ({@code ack > from/2}) are made so that, with quorum reads, single-key
 *       operations are linearizable: by default in one round trip, counting only replicas that took the
 *       write ({@link OneRoundWrite}), or with {@link WriteProtocol#ABD} in ABD's two phases (the key's
 *       version read from {@code ack} replicas first, see {@code quorumWrite}).</li>
 *   <li>Every version seen in a remote answer advances the node's {@link HybridLogicalClock}; an answer
 *       whose version the clock refuses as too far ahead of it ({@link ClockOffsetException}) counts as a
 *       failed answer.</li>
 * </ul>
 *
 * <p>Threading: call from a request worker, or from an HTTP event loop when the local engine's writes
 * will not block ({@link io.ringbase.storage.StorageEngine#writeMayBlock()}): the local replica runs
 * on the calling thread. The returned futures complete on the caller or on a replica client event
 * loop; callbacks on them must not block. Background read-repair writes run on {@code background}; a
 * quorum read's write-back is sent from the thread that completed its {@code ack}-th answer (replica
 * calls do not block). Thread-safe.
 */
public final class Coordinator {

    private static final Logger log = LoggerFactory.getLogger(Coordinator.class);

    private volatile Placement placement;
    private final ReplicaDirectory replicas;

    private final Liveness liveness;
    private final HybridLogicalClock clock;
    private final Executor background;
    private final ReadRepair readRepair;
    private final SpeculativeRetry retry;
    private final Scheduler scheduler;
    private final ReadLatency latency;
    private final LongAdder speculated = new LongAdder();
    private final LongAdder localOps = new LongAdder();
    private final LongAdder remoteOps = new LongAdder();
    private final PeerProbes probes;
    private final WriteProtocol writeProtocol;
    private final OneRoundWrite oneRound;
    private final PlainWrite plain;

    /**
     * A coordinator that sends every read to all replicas at once ({@link SpeculativeRetry#ALWAYS}),
     * with no timer: replicas marked slow get a read only when another fails.
     *
     * @param replicas   one per node, by {@link NodeId#index()}; the entry for {@code topology.self()}
     *                   should be a {@link LocalReplica}
     * @param background runs read-repair writes (it may drop them when saturated: repair catches up)
     */
    public Coordinator(
            Topology topology,
            List<Replica> replicas,
            Liveness liveness,
            HintSink hints,
            HybridLogicalClock clock,
            Executor background) {
        this(topology, replicas, liveness, hints, clock, background, SpeculativeRetry.ALWAYS, null);
    }

    /**
     * @param replicas   one per node, by {@link NodeId#index()}; the entry for {@code topology.self()}
     *                   should be a {@link LocalReplica}
     * @param background runs read-repair writes (it may drop them when saturated: repair catches up)
     * @param retry      how reads spread over the replicas
     * @param scheduler  runs speculative retries' timers; {@code null}: none (a further replica is asked
     *                   only when one fails)
     */
    public Coordinator(
            Topology topology,
            List<Replica> replicas,
            Liveness liveness,
            HintSink hints,
            HybridLogicalClock clock,
            Executor background,
            SpeculativeRetry retry,
            Scheduler scheduler) {
        this(topology, replicas, liveness, hints, clock, background, retry, scheduler, TimeSource.SYSTEM);
    }

    /**
     * As {@link #Coordinator(Topology, List, Liveness, HintSink, HybridLogicalClock, Executor, SpeculativeRetry,
     * Scheduler, TimeSource, WriteProtocol)} with the default write protocol ({@link WriteProtocol#DEFAULT}).
     */
    public Coordinator(
            Topology topology,
            List<Replica> replicas,
            Liveness liveness,
            HintSink hints,
            HybridLogicalClock clock,
            Executor background,
            SpeculativeRetry retry,
            Scheduler scheduler,
            TimeSource time) {
        this(topology, replicas, liveness, hints, clock, background, retry, scheduler, time, WriteProtocol.DEFAULT);
    }

    /**
     * As {@link #Coordinator(Topology, List, Liveness, HintSink, HybridLogicalClock, Executor, SpeculativeRetry,
     * Scheduler)}, with {@code time} the wall clock the failure detector records when a node went down.
     *
     * @param writeProtocol how quorum writes are made ({@code --write-protocol})
     */
    public Coordinator(
            Topology topology,
            List<Replica> replicas,
            Liveness liveness,
            HintSink hints,
            HybridLogicalClock clock,
            Executor background,
            SpeculativeRetry retry,
            Scheduler scheduler,
            TimeSource time,
            WriteProtocol writeProtocol) {
        if (replicas.size() != topology.size()) {
            throw new IllegalArgumentException(replicas.size() + " replicas for " + topology.size() + " nodes");
        }
        this.placement = Placement.of(topology);
        this.replicas = new ReplicaDirectory(replicas);
        this.liveness = liveness;
        this.clock = clock;
        this.background = background;
        this.retry = retry;
        this.scheduler = scheduler;
        this.latency = new ReadLatency(retry.percentile(), INITIAL_SPECULATION_DELAY_NANOS, System.nanoTime());
        this.probes = new PeerProbes(topology.self(), this.replicas::members, this.replicas::get, liveness, time);
        this.readRepair = new ReadRepair(this::dataReplica, probes::classify, liveness, background);
        this.writeProtocol = writeProtocol;
        this.oneRound =
                new OneRoundWrite(() -> this.placement, this::dataReplica, probes, liveness, hints, clock, background);
        this.plain =
                new PlainWrite(() -> this.placement, this::dataReplica, probes, liveness, hints, clock, background);
    }

    /** The placement requests use now. */
    public Placement placement() {
        return placement;
    }

    /**
     * Moves to a newer placement (a membership change moved on): requests that start from now on use it.
     * A node new to this coordinator gets its replica from {@code newReplica}. A placement whose epoch is
     * not above the current one is ignored.
     *
     * @param newReplica the replica of a node this coordinator has no replica of yet
     * @throws IllegalArgumentException if the placement is of another node
     */
    public synchronized void place(Placement next, Function<NodeId, Replica> newReplica) {
        if (!next.self().equals(placement.self())) {
            throw new IllegalArgumentException("placement of " + next.self() + " given to " + placement.self());
        }
        if (next.epoch() <= placement.epoch()) {
            return;
        }
        replicas.update(next.nodes(), newReplica);
        placement = next;
        log.info("placement at epoch {}: {}", next.epoch(), next);
    }

    /** The replica of {@code node}. */
    public Replica replica(NodeId node) {
        return replicas.get(node.index());
    }

    /**
     * The replica of {@code node} for one data operation of a request this node coordinates (a read, a
     * version read, a write, a read-repair write), counted as local or remote.
     */
    private Replica dataReplica(NodeId node) {
        (node.equals(placement.self()) ? localOps : remoteOps).increment();
        return replicas.get(node.index());
    }

    /**
     * Data operations (reads, version reads, writes, read-repair writes) of requests this node coordinated
     * that went to its own engine, since it started. A client that sends each request to one of the key's
     * replicas makes every request do at least one.
     */
    public long localReplicaOps() {
        return localOps.sum();
    }

    /** As {@link #localReplicaOps()}, for those sent to other nodes: each is a network round trip. */
    public long remoteReplicaOps() {
        return remoteOps.sum();
    }

    /** The replicas of every node of the placement, current ring first. */
    public List<Replica> replicas() {
        return replicas.members();
    }

    /** The replicas of every node the failure detector holds up (this node always), by node index. */
    public List<Replica> upReplicas() {
        return probes.upReplicas();
    }

    /**
     * The replicas up, as {@link #upReplicas()}, but when fewer than {@code needed} are believed up the
     * believed-down ones are probed first, so a node that is back counts at once. Completes on the
     * caller or a client event loop, within the replica timeout.
     */
    public CompletableFuture<List<Replica>> upReplicas(int needed) {
        return probes.upReplicas(needed);
    }

    /** The failure detector's pings of this coordinator's peers. */
    public PeerProbes probes() {
        return probes;
    }

    /** Reads (and version reads) sent to one more replica because a speculative retry's delay passed. */
    public long speculativeReads() {
        return speculated.sum();
    }

    /** How this coordinator makes quorum writes. */
    public WriteProtocol writeProtocol() {
        return writeProtocol;
    }

    /**
     * One-round quorum writes sent again under a newer version because every replica held a newer one
     * ({@link OneRoundWrite}); 0 under ABD.
     */
    public long writesRestamped() {
        return oneRound.restamped();
    }

    /**
     * One-round quorum writes failed as possibly applied because some replicas took them while others held
     * a newer version ({@link OneRoundWrite}); 0 under ABD.
     */
    public long writesSplit() {
        return oneRound.split();
    }

    /** Read-repair writes started so far (before answering and in the background). */
    public long readRepairs() {
        return readRepair.writes();
    }

    /**
     * Writes {@code entry} (value or tombstone, version already assigned) to its first {@code from}
     * replicas and completes after {@code ack} acknowledgements, with the version written: the entry's
     * own, or a newer one when it had to be written again above a version it lost to.
     *
     * @throws IllegalArgumentException unless {@code 0 < ack <= from <= replication factor}
     */
    public CompletableFuture<Long> write(Entry entry, int ack, int from) {
        if (isQuorum(ack, from)) {
            return writeProtocol == WriteProtocol.ONE_ROUND
                    ? oneRound.write(entry, ack, from)
                    : quorumWrite(entry, ack, from);
        }
        return plain.write(entry, ack, from);
    }

    /**
     * Writes {@code entry} to its replicas with exactly its version: never re-versioned, neither by ABD's
     * first phase nor after losing to a newer version, so a replica that holds a newer version keeps it.
     * Completes after {@code ack} answers (stored or refused as older). The conditional write back of a
     * server-side {@code update} (docs/functions.md), whose version is just above the one it read.
     *
     * @throws IllegalArgumentException unless {@code 0 < ack <= from <= replication factor}
     */
    public CompletableFuture<Void> writeAsVersioned(Entry entry, int ack, int from) {
        WriteSet w = writeSet(entry.key(), ack, from);
        return plain.writeWithPending(
                        entry,
                        ack,
                        from,
                        MAX_WRITE_ATTEMPTS,
                        w.targets(),
                        probes.up(w.targets(), true),
                        w.pending(),
                        false)
                .thenAccept(written -> {});
    }

    /**
     * The replicas of one write of {@code key}: where its versions are read, where it is written (they differ
     * only for a node being replaced), and the pending replicas of a membership change that it also goes to.
     */
    private record WriteSet(List<NodeId> readTargets, List<NodeId> targets, List<NodeId> pending) {}

    /** The {@link WriteSet} of {@code key} in the placement now; checks {@code ack} and {@code from}. */
    private WriteSet writeSet(byte[] key, int ack, int from) {
        Placement p = placement;
        long hash = Ring.keyHash(key);
        List<NodeId> readTargets = p.readReplicas(hash, checkAck(p, ack, from));
        List<NodeId> targets = p.writeReplicas(readTargets);
        return new WriteSet(readTargets, targets, p.pendingReplicas(hash, targets, from));
    }

    /**
     * A quorum write in the two phases of ABD's multi-writer register (Attiya, Bar-Noy and Dolev, "Sharing
     * memory robustly in message-passing systems", JACM 1995; Lynch and Shvartsman's multi-writer form):
     * first the key's version is read from {@code ack} replicas and the clock observes it, so the write's
     * version is above that of every write that completed before this one began (their quorums intersect
     * the one read); then the entry is written, with its version raised above what was read if needed.
     * A replica that answers the second phase with a newer version holds a concurrent write; the two may be
     * ordered either way, so this write completes as ordered before it and is never written again under a
     * newer version (which would make it take effect twice, after a read had seen the concurrent one).
     *
     * <p>Costs one more round trip than a plain write; what it buys is in docs/http-api.md, "Consistency".
     * The first phase asks for versions only ({@link Replica#version}), no values.
     */
    private CompletableFuture<Long> quorumWrite(Entry entry, int ack, int from) {
        WriteSet w = writeSet(entry.key(), ack, from);
        List<NodeId> readTargets = w.readTargets();
        List<NodeId> targets = w.targets();
        List<NodeId> pending = w.pending();
        List<NodeId> up = probes.up(readTargets, true);
        if (up.size() < ack) {
            return probes.afterProbing(
                    readTargets,
                    ack,
                    from,
                    true,
                    background,
                    nowUp -> quorumWrite(entry, ack, from, readTargets, nowUp, targets, pending));
        }
        return quorumWrite(entry, ack, from, readTargets, up, targets, pending);
    }

    /**
     * The two phases once {@code readUp} (of {@code readTargets}) are known: the versions are read where
     * reads go, the entry written to {@code targets} (they differ only for a node being replaced).
     */
    private CompletableFuture<Long> quorumWrite(
            Entry entry,
            int ack,
            int from,
            List<NodeId> readTargets,
            List<NodeId> readUp,
            List<NodeId> targets,
            List<NodeId> pending) {
        return versionsOf(entry.key(), ack, from, readUp).thenCompose(answers -> {
            long newest = Replica.NO_VERSION;
            for (Tally.Answer<Long> a : answers) {
                newest = Math.max(newest, a.value());
            }
            Entry versioned =
                    newest < entry.version() ? entry : entry.withVersion(clock.now()); // observed: above newest
            List<NodeId> up = targets == readTargets ? readUp : probes.up(targets, true);
            return plain.writeWithPending(versioned, ack, from, MAX_WRITE_ATTEMPTS, targets, up, pending, false);
        });
    }

    /**
     * The first {@code ack} answers of {@code up} to a version query of {@code key} ({@link Replica#version};
     * every remote version observed by the clock); fails as a read does when {@code ack} answers cannot
     * be had.
     */
    private CompletableFuture<List<Tally.Answer<Long>>> versionsOf(byte[] key, int ack, int from, List<NodeId> up) {
        Tally<Long> tally = Tally.deferred(ack, from, up.size());
        NodeId self = placement.self();
        fanOut(tally, up, ack, (f, t) -> {
            long sentAt = System.nanoTime();
            var _ = dataReplica(t).version(key).whenComplete((version, failure) -> {
                if (failure != null) {
                    if (t.equals(self)) {
                        log.error("local read failed", unwrap(failure));
                        f.failed(Tally.Kind.FAILED);
                    } else {
                        f.failed(probes.classify(t, failure));
                    }
                    return;
                }
                if (!t.equals(self)) {
                    answeredRead(t, sentAt);
                    if (version != Replica.NO_VERSION && !observed(t, version)) {
                        f.failed(Tally.Kind.FAILED); // a version from a clock too far ahead is not used
                        return;
                    }
                }
                f.answer(t, version);
            });
        });
        return tally.result;
    }

    /** The speculative retry delay before the first latency window closes ({@link ReadLatency}), ns. */
    static final long INITIAL_SPECULATION_DELAY_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    /** The least speculative retry delay, whatever the latency percentile, ns. */
    static final long MIN_SPECULATION_DELAY_NANOS = TimeUnit.MICROSECONDS.toNanos(100);

    /** Times a coordinator re-versions a write that lost to a newer version it had not seen. */
    static final int MAX_WRITE_ATTEMPTS = 3;

    /**
     * Reads {@code key} from its first {@code from} replicas, asking them as the {@link SpeculativeRetry}
     * policy says; completes with the newest of the first {@code ack} answers ({@code null} if none has
     * the key). A quorum read ({@code ack > from/2}) whose first {@code ack} answers differ first writes
     * the newest back until {@code ack} replicas hold it ({@link ReadRepair#beforeAnswering}, to all
     * {@code from} replicas up; fails with {@link QuorumException.NotEnoughAnswers} if it cannot); every
     * other read repairs the stale replicas it asked in the background once all of them have answered.
     *
     * @throws IllegalArgumentException unless {@code 0 < ack <= from <= replication factor}
     */
    public CompletableFuture<Entry> read(byte[] key, int ack, int from) {
        Placement p = placement;
        List<NodeId> targets = p.readReplicas(Ring.keyHash(key), checkAck(p, ack, from));
        List<NodeId> up = probes.up(targets, false);
        if (up.size() < ack) {
            return probes.afterProbing(targets, ack, from, false, background, nowUp -> read(key, ack, from, nowUp));
        }
        return read(key, ack, from, up);
    }

    private CompletableFuture<Entry> read(byte[] key, int ack, int from, List<NodeId> up) {
        boolean quorum = isQuorum(ack, from);
        Tally<Entry> tally = Tally.deferred(ack, from, up.size());
        tally.onAllAnswered = all -> {
            List<Tally.Answer<Entry>> first = tally.firstAck();
            if (!quorum || first == null || ReadRepair.agree(first)) { // else written back before answering
                readRepair.inBackground(all);
            }
        };
        NodeId self = placement.self();
        fanOut(tally, up, ack, (f, t) -> {
            if (t.equals(self)) {
                var _ = dataReplica(self).read(key).whenComplete((e, failure) -> {
                    if (failure == null) {
                        f.answer(self, e);
                    } else {
                        log.error("local read failed", unwrap(failure));
                        f.failed(Tally.Kind.FAILED);
                    }
                });
                return;
            }
            long sentAt = System.nanoTime();
            var _ = dataReplica(t).read(key).whenComplete((e, failure) -> {
                if (failure == null) {
                    answeredRead(t, sentAt);
                    if (e != null && !observed(t, e.version())) {
                        f.failed(Tally.Kind.FAILED); // an entry from a clock too far ahead is not used
                        return;
                    }
                    f.answer(t, e);
                } else {
                    f.failed(probes.classify(t, failure));
                }
            });
        });
        if (!quorum) {
            return tally.result.thenApply(ReadRepair::newest);
        }
        return tally.result.thenCompose(answers -> readRepair.beforeAnswering(answers, up, ack, from));
    }

    /**
     * Starts a read's fan-out ({@link ReadFanout}) over {@code up}, in the order it asks them
     * ({@link SpeculativeRetry}): this node first (no network), then the others in ring order, those
     * marked slow ({@link Liveness#isSlow}) last; its first replicas per the policy, and its speculative
     * retry timer.
     *
     * @param send sends the read to one replica and reports its outcome to the fan-out
     */
    private <T> void fanOut(Tally<T> tally, List<NodeId> up, int ack, BiConsumer<ReadFanout<T>, NodeId> send) {
        NodeId self = placement.self();
        List<NodeId> order = new ArrayList<>(up.size());
        List<NodeId> slow = null;
        if (up.contains(self)) {
            order.add(self);
        }
        for (NodeId t : up) {
            if (t.equals(self)) {
                continue;
            }
            if (liveness.isSlow(t)) {
                if (slow == null) {
                    slow = new ArrayList<>(up.size());
                }
                slow.add(t);
            } else {
                order.add(t);
            }
        }
        int notSlow = order.size();
        if (slow != null) {
            order.addAll(slow);
        }
        new ReadFanout<>(order, self, tally, send, speculated)
                .start(retry.initialFanout(ack, notSlow), retry.delays() ? scheduler : null, speculationDelayNanos());
    }

    /** How long a read waits for {@code ack} answers before it asks one more replica, ns. */
    long speculationDelayNanos() {
        if (retry.kind() == SpeculativeRetry.Kind.FIXED) {
            return TimeUnit.MILLISECONDS.toNanos(retry.fixedMs());
        }
        return Math.max(MIN_SPECULATION_DELAY_NANOS, latency.estimateNanos());
    }

    /** A remote read (or version read) sent at {@code sentAtNanos} answered now. */
    private void answeredRead(NodeId node, long sentAtNanos) {
        liveness.markAnswered(node);
        long now = System.nanoTime();
        latency.record(now - sentAtNanos, now);
    }

    /**
     * Whether {@code ack} of {@code from} is a quorum: a majority, so any two such sets of one key's
     * replicas intersect.
     */
    public static boolean isQuorum(int ack, int from) {
        return 2 * ack > from;
    }

    static int checkAck(Placement placement, int ack, int from) {
        int rf = placement.replicationFactor();
        if (from <= 0 || from > rf || ack <= 0 || ack > from) {
            throw new IllegalArgumentException(
                    "need 0 < ack <= from <= " + rf + " (the replication factor), got ack=" + ack + " from=" + from);
        }
        return from;
    }

    /**
     * Advances the clock past a version {@code node} answered with; {@code false} if the clock refused it
     * as too far ahead ({@link HybridLogicalClock#observe}, which logs it): the answer must not be used.
     */
    private boolean observed(NodeId node, long version) {
        return observed(clock, node, version);
    }

    /** {@link #observed(NodeId, long)} on {@code clock}. */
    static boolean observed(HybridLogicalClock clock, NodeId node, long version) {
        try {
            clock.observe(version);
            return true;
        } catch (ClockOffsetException e) {
            log.debug("answer of {} not used: {}", node, e.getMessage());
            return false;
        }
    }

    static Throwable unwrap(Throwable t) {
        return PeerProbes.unwrap(t);
    }
}
