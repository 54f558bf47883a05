package io.ringbase.cluster.replication;

import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.ring.Placement;
import io.ringbase.cluster.ring.Ring;
import io.ringbase.kv.QuorumException;
import io.ringbase.storage.Entry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A quorum write ({@code ack > from/2}) in one round trip per replica ({@link WriteProtocol#ONE_ROUND}):
 * the entry goes once to the key's replicas under the version the coordinator's clock gave it, and each
 * replica answers with {@link Replica#writeChecked}: the entry's own version if it now holds the entry
 * (it <em>took</em> it: what it held was older), or a higher version if it holds a newer entry of the
 * key (it <em>refused</em> it). The write completes once {@code ack} replicas took it; refusals never
 * count. docs/design.md, "Quorum writes in one round trip", argues why this is linearizable; in short:
 *
 * <ul>
 *   <li><b>Taken by {@code ack}:</b> done. Replicas only ever move to newer entries, and a replica takes
 *       an entry only above what it holds, so the write is newer than every write completed before it
 *       began (their quorums meet this one). Pending replicas of a membership change add to {@code ack}
 *       and {@code from} as in every write.</li>
 *   <li><b>Refused by every replica sent to</b> (each answered, each with a newer version): no replica
 *       holds the write, so it has not taken effect anywhere. The clock observes the newest version met and
 *       the write goes out again above it, up to {@link Coordinator#MAX_WRITE_ATTEMPTS} attempts in all,
 *       then fails ({@link QuorumException.LostToNewerVersions#notAccepted}). This is the case of a
 *       coordinator whose clock is behind a write that completed elsewhere.</li>
 *   <li><b>Anything else short of {@code ack} takes</b> (some took it and some refused it, or a replica
 *       timed out or failed): the write may be visible where it was taken (a quorum read writes back what it
 *       sees), so writing it again under a newer version could make it take effect twice, after a read saw
 *       the newer write. It fails as possibly applied: {@link QuorumException.LostToNewerVersions#split} if a
 *       replica refused it, else {@link QuorumException.NotEnoughAnswers}, as ABD's write does.</li>
 * </ul>
 *
 * <p>Hints: a replica that fails or times out gets a hint at once, as in every write. The replicas known
 * down when the write starts get theirs only once the attempt is decided, and none when it is sent
 * again: a hint of a version that was refused everywhere would plant it later on a replica that missed
 * the newer one. A write that succeeds answers once the hints handed over by then are stored.
 *
 * <p>Threading as {@link Coordinator}'s: answers complete on the caller or a client event loop; a
 * re-stamped attempt starts on {@code background}. Thread-safe.
 */
final class OneRoundWrite {

    private static final Logger log = LoggerFactory.getLogger(OneRoundWrite.class);

    private final Supplier<Placement> placement;
    private final Function<NodeId, Replica> replicas;
    private final PeerProbes probes;
    private final Liveness liveness;
    private final HintSink hints;
    private final HybridLogicalClock clock;
    private final Executor background;
    private final LongAdder restamped = new LongAdder();
    private final LongAdder split = new LongAdder();

    /**
     * @param placement  the placement now (read once per attempt)
     * @param replicas   the replica of a node
     * @param background runs re-stamped attempts (a full queue fails the write)
     */
    OneRoundWrite(
            Supplier<Placement> placement,
            Function<NodeId, Replica> replicas,
            PeerProbes probes,
            Liveness liveness,
            HintSink hints,
            HybridLogicalClock clock,
            Executor background) {
        this.placement = placement;
        this.replicas = replicas;
        this.probes = probes;
        this.liveness = liveness;
        this.hints = hints;
        this.clock = clock;
        this.background = background;
    }

    /** Attempts sent again under a newer version because every replica refused the previous one. */
    long restamped() {
        return restamped.sum();
    }

    /** Writes failed as possibly applied because some replicas took them and others held newer versions. */
    long split() {
        return split.sum();
    }

    /**
     * Writes {@code entry} (version already assigned by this node's clock) to its first {@code from}
     * replicas and the pending ones; completes once {@code ack} of them (plus one per pending replica) took
     * it and the hints known by then are stored.
     *
     * @throws IllegalArgumentException unless {@code 0 < ack <= from <= replication factor}
     */
    CompletableFuture<Long> write(Entry entry, int ack, int from) {
        return attempt(entry, ack, from, 1);
    }

    private CompletableFuture<Long> attempt(Entry entry, int ack, int from, int attempt) {
        Placement p = placement.get();
        long hash = Ring.keyHash(entry.key());
        List<NodeId> targets = p.writeReplicas(p.readReplicas(hash, Coordinator.checkAck(p, ack, from)));
        List<NodeId> pending = p.pendingReplicas(hash, targets, from);
        int extra = pending.size(); // each pending replica adds one to ack and from (Cassandra's pending ranges)
        List<NodeId> all = targets;
        if (extra > 0) {
            all = new ArrayList<>(targets);
            all.addAll(pending);
        }
        List<NodeId> allTargets = all;
        List<NodeId> up = probes.up(allTargets, true);
        if (up.size() < ack + extra) { // probe the ones believed down before refusing
            return probes.afterProbing(
                    allTargets,
                    ack + extra,
                    from + extra,
                    true,
                    background,
                    nowUp -> send(entry, ack, from, attempt, p.self(), allTargets, nowUp, extra));
        }
        return send(entry, ack, from, attempt, p.self(), allTargets, up, extra);
    }

    private CompletableFuture<Long> send(
            Entry entry,
            int ack,
            int from,
            int attempt,
            NodeId self,
            List<NodeId> targets,
            List<NodeId> up,
            int extra) {
        Round round = new Round(ack + extra, up.size());
        HintWaits hinted = new HintWaits();
        for (NodeId t : up) {
            if (!t.equals(self)) {
                var _ = replicas.apply(t).writeChecked(entry).whenComplete((stored, failure) -> {
                    if (failure == null) {
                        liveness.markAnswered(t);
                        answered(round, t, entry, stored);
                        return;
                    }
                    hinted.add(hints.hint(t, entry));
                    if (Coordinator.unwrap(failure) instanceof ReplicaException.Failed) {
                        var _ = probes.probe(t); // an error answer: can its engine still write? (shared ping)
                    }
                    round.failed(probes.classify(t, failure));
                });
            }
        }
        if (up.contains(self)) { // last: the remote writes are already on their way
            var _ = replicas.apply(self).writeChecked(entry).whenComplete((stored, failure) -> {
                if (failure == null) {
                    answered(round, self, entry, stored);
                } else {
                    log.error("local write of a replicated entry failed", Coordinator.unwrap(failure));
                    round.failed(Tally.Kind.FAILED);
                }
            });
        }
        return round.result.thenCompose(outcome -> {
            if (outcome != Outcome.REFUSED) { // the write may be somewhere: the replicas known down get hints
                for (NodeId t : targets) {
                    if (!up.contains(t)) {
                        hinted.add(hints.hint(t, entry));
                    }
                }
            }
            return switch (outcome) {
                case TAKEN -> hinted.allStored().thenApply(v -> entry.version());
                case SPLIT -> {
                    split.increment();
                    long n = split.sum();
                    if (Long.bitCount(n) == 1 && round.refusedAny()) { // 1, 2, 4...: the count, not a line per write
                        log.info(
                                "quorum writes failed as possibly applied, taken by some replicas while others held a"
                                        + " newer version: {} so far (one key written through several coordinators"
                                        + " at once, or a replica that missed a write)",
                                n);
                    }
                    yield CompletableFuture.<Long>failedFuture(round.splitFailure(ack + extra, from + extra));
                }
                case REFUSED -> again(entry, ack, from, attempt, round.newest());
            };
        });
    }

    /** A replica's answer: taken if it holds the entry now, refused (a newer version) if not. */
    private void answered(Round round, NodeId node, Entry entry, long stored) {
        if (stored == entry.version()) {
            round.taken();
            return;
        }
        // observed, so that the next attempt is stamped above it; from a clock too far ahead it is not used
        if (!Coordinator.observed(clock, node, stored)) {
            round.failed(Tally.Kind.FAILED);
            return;
        }
        round.refused(stored);
    }

    /** Every replica refused attempt {@code attempt}, the newest holding {@code newest}: stamp above it, send. */
    private CompletableFuture<Long> again(Entry entry, int ack, int from, int attempt, long newest) {
        if (attempt >= Coordinator.MAX_WRITE_ATTEMPTS) {
            return CompletableFuture.failedFuture(QuorumException.LostToNewerVersions.notAccepted(ack, from, attempt));
        }
        Entry restampedEntry = entry.withVersion(clock.now());
        restamped.increment();
        long n = restamped.sum();
        if (Long.bitCount(n) == 1) { // 1, 2, 4, 8...: the count without a line per write
            log.info(
                    "quorum writes sent again above a newer version every replica held: {} so far (this node's"
                            + " clock behind another coordinator's, or one key written through several at once)",
                    n);
        }
        log.debug("write refused by every replica (newest {}); sending again as {}", newest, restampedEntry.version());
        try { // off the answering thread: the local replica may block
            @SuppressWarnings("FutureReturnValueIgnored") // the nested future is flattened right below
            CompletableFuture<CompletableFuture<Long>> nested =
                    CompletableFuture.supplyAsync(() -> attempt(restampedEntry, ack, from, attempt + 1), background);
            return nested.thenCompose(f -> f);
        } catch (RejectedExecutionException e) { // the background queue is full: give up here
            return CompletableFuture.failedFuture(QuorumException.LostToNewerVersions.queueFull(
                    ack, from, 0, attempt, Coordinator.MAX_WRITE_ATTEMPTS));
        }
    }

    /** How an attempt ended. */
    enum Outcome {
        /** {@code ack} replicas took it. */
        TAKEN,
        /** Every replica it was sent to answered, each with a newer version: no replica holds it. */
        REFUSED,
        /** Neither: it may be held by some replicas and cannot reach {@code ack}. */
        SPLIT
    }

    /**
     * Counts one attempt's answers and decides its {@link Outcome} as soon as it is known: {@code TAKEN} at
     * the {@code need}-th take, {@code SPLIT} once {@code need} takes are out of reach and a replica took it,
     * timed out or failed, {@code REFUSED} once every replica refused. Thread-safe.
     */
    static final class Round {
        private final int need;
        private final int sent;
        private int taken;
        private int refused;
        private int timeouts;
        private int failures;
        private long newest = Long.MIN_VALUE;
        private boolean decided;
        final CompletableFuture<Outcome> result = new CompletableFuture<>();

        /** A round of {@code sent} calls of which {@code need} must take the write. */
        Round(int need, int sent) {
            this.need = need;
            this.sent = sent;
            if (sent < need) {
                decided = true;
                result.complete(Outcome.SPLIT);
            }
        }

        void taken() {
            decide(() -> taken++);
        }

        void refused(long version) {
            decide(() -> {
                refused++;
                newest = Math.max(newest, version);
            });
        }

        void failed(Tally.Kind kind) {
            decide(() -> {
                if (kind == Tally.Kind.TIMEOUT) {
                    timeouts++;
                } else {
                    failures++;
                }
            });
        }

        /** Whether some replica refused the write. */
        synchronized boolean refusedAny() {
            return refused > 0;
        }

        /** The newest version a replica refused with. */
        synchronized long newest() {
            return newest;
        }

        /** How a {@code SPLIT} round fails the write. */
        synchronized QuorumException splitFailure(int ack, int from) {
            if (refused == 0) {
                return new QuorumException.NotEnoughAnswers(ack, from, taken, timeouts, failures);
            }
            return QuorumException.LostToNewerVersions.split(ack, from, taken, refused, timeouts, failures);
        }

        private void decide(Runnable count) {
            Outcome outcome = null;
            synchronized (this) {
                count.run();
                if (decided) {
                    return;
                }
                int open = sent - taken - refused - timeouts - failures;
                if (taken >= need) {
                    outcome = Outcome.TAKEN;
                } else if (taken + open < need) {
                    if (taken + timeouts + failures > 0) {
                        outcome = Outcome.SPLIT;
                    } else if (open == 0) {
                        outcome = Outcome.REFUSED;
                    } // else wait: refusals so far, and the rest may refuse too
                }
                if (outcome == null) {
                    return;
                }
                decided = true;
            }
            result.complete(outcome);
        }
    }
}
