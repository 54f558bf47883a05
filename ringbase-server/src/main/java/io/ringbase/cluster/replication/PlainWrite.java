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
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator's write as Dynamo makes it (§4.5): the entry goes to the key's replicas (and the pending
 * ones of a membership change) and completes after {@code ack} acknowledgements, with hints for the
 * replicas that are down or do not answer. Used for writes below a quorum, which re-version a write that
 * lost to a newer version it had not seen, and for the second phase of an ABD quorum write, which does
 * not ({@link Coordinator}). Threading as {@link Coordinator}'s. Thread-safe.
 */
final class PlainWrite {

    private static final Logger log = LoggerFactory.getLogger(PlainWrite.class);

    private final Supplier<Placement> placement;
    private final Function<NodeId, Replica> replicas;
    private final PeerProbes probes;
    private final Liveness liveness;
    private final HintSink hints;
    private final HybridLogicalClock clock;
    private final Executor background;

    /**
     * @param placement  the placement now (read once per write)
     * @param replicas   the replica of a node
     * @param background runs re-versioned attempts (a full queue fails the write)
     */
    PlainWrite(
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

    /**
     * Writes {@code entry} to its first {@code from} replicas and completes after {@code ack}
     * acknowledgements; an acknowledgement holding a newer version makes it be written again above that
     * version (up to {@link Coordinator#MAX_WRITE_ATTEMPTS} in all).
     *
     * @throws IllegalArgumentException unless {@code 0 < ack <= from <= replication factor}
     */
    CompletableFuture<Long> write(Entry entry, int ack, int from) {
        return write(entry, ack, from, 1);
    }

    private CompletableFuture<Long> write(Entry entry, int ack, int from, int attempt) {
        Placement p = placement.get();
        long hash = Ring.keyHash(entry.key());
        List<NodeId> targets = p.writeReplicas(p.readReplicas(hash, Coordinator.checkAck(p, ack, from)));
        List<NodeId> pending = p.pendingReplicas(hash, targets, from);
        List<NodeId> up = probes.up(targets, true);
        if (up.size() < ack) {
            return probes.afterProbing(
                    targets,
                    ack,
                    from,
                    true,
                    background,
                    nowUp -> writeWithPending(entry, ack, from, attempt, targets, nowUp, pending, true));
        }
        return writeWithPending(entry, ack, from, attempt, targets, up, pending, true);
    }

    /**
     * A write to {@code targets} (of which {@code up} are up) and to the {@code pending} replicas of a
     * membership change: each pending replica adds one to the acknowledgements needed and to the replicas
     * written, as Cassandra's pending ranges do, so that the acknowledged copies form a quorum of the old
     * placement and of the new one.
     */
    CompletableFuture<Long> writeWithPending(
            Entry entry,
            int ack,
            int from,
            int attempt,
            List<NodeId> targets,
            List<NodeId> up,
            List<NodeId> pending,
            boolean reversion) {
        if (pending.isEmpty()) {
            return write(entry, ack, from, attempt, targets, up, reversion, ack, from);
        }
        List<NodeId> allTargets = new ArrayList<>(targets);
        allTargets.addAll(pending);
        List<NodeId> allUp = new ArrayList<>(up);
        allUp.addAll(probes.up(pending, true));
        int extra = pending.size();
        if (allUp.size() < ack + extra) { // as for any write: probe the ones believed down before refusing
            return probes.afterProbing(
                    allTargets,
                    ack + extra,
                    from + extra,
                    true,
                    background,
                    nowUp -> write(entry, ack + extra, from + extra, attempt, allTargets, nowUp, reversion, ack, from));
        }
        return write(entry, ack + extra, from + extra, attempt, allTargets, allUp, reversion, ack, from);
    }

    /**
     * Sends {@code entry} to {@code up}, hints the other {@code targets}. A re-sent write starts over from the
     * request's own {@code requestAck} of {@code requestFrom}. With {@code reversion}, an ack
     * answer holding a newer version makes the write be sent again under a newer version (up to
     * {@link Coordinator#MAX_WRITE_ATTEMPTS} in all); without, such an answer counts as an acknowledgement.
     */
    private CompletableFuture<Long> write(
            Entry entry,
            int ack,
            int from,
            int attempt,
            List<NodeId> targets,
            List<NodeId> up,
            boolean reversion,
            int requestAck,
            int requestFrom) {
        HintWaits hinted = new HintWaits();
        for (NodeId t : targets) {
            if (!up.contains(t)) {
                hinted.add(hints.hint(t, entry));
            }
        }
        Tally<Long> tally = new Tally<>(ack, from, up.size());
        NodeId self = placement.get().self();
        for (NodeId t : up) {
            if (!t.equals(self)) {
                var _ = replicas.apply(t).writeChecked(entry).whenComplete((stored, failure) -> {
                    if (failure == null) {
                        liveness.markAnswered(t);
                        if (stored > entry.version() && !Coordinator.observed(clock, t, stored)) {
                            tally.failed(Tally.Kind.FAILED); // it holds a version from a clock too far ahead
                            return;
                        }
                        tally.answer(t, stored);
                    } else {
                        hinted.add(hints.hint(t, entry));
                        Tally.Kind kind = probes.classify(t, failure);
                        if (Coordinator.unwrap(failure) instanceof ReplicaException.Failed) {
                            var _ = probes.probe(
                                    t); // an error answer: ask whether its engine can still write (shared ping)
                        }
                        tally.failed(kind);
                    }
                });
            }
        }
        if (up.contains(self)) { // last: the remote writes are already on their way
            var _ = replicas.apply(self).writeChecked(entry).whenComplete((stored, failure) -> {
                if (failure == null) {
                    tally.answer(self, stored);
                } else {
                    log.error("local write of a replicated entry failed", Coordinator.unwrap(failure));
                    tally.failed(Tally.Kind.FAILED);
                }
            });
        }
        return tally.result.thenCompose(answers -> {
            long newest = entry.version();
            for (Tally.Answer<Long> a : answers) {
                newest = Math.max(newest, a.value());
            }
            if (newest == entry.version() || !reversion) {
                return hinted.allStored()
                        .thenApply(
                                v -> entry.version()); // below: a quorum write meeting a newer version met a concurrent
                // write
            }
            // An acking replica already held a newer version of the key: a write this coordinator's clock
            // had not seen (e.g. acknowledged through another node in the same millisecond). The client's
            // write came later in real time, so it must win: write it again above that version. (Only for
            // writes below a quorum, which promise no order: quorum writes read versions first instead.)
            // every answer's version was observed when it came (a remote one) or is this node's own
            Entry again = entry.withVersion(clock.now());
            if (attempt >= Coordinator.MAX_WRITE_ATTEMPTS) {
                return CompletableFuture.<Long>failedFuture(
                        QuorumException.LostToNewerVersions.afterAttempts(ack, from, answers.size(), attempt));
            }
            log.debug("write of a key lost to newer version {}; re-writing as {}", newest, again.version());
            try { // off the answering thread: the local replica may block
                @SuppressWarnings("FutureReturnValueIgnored") // the nested future is flattened right below
                CompletableFuture<CompletableFuture<Long>> nested = CompletableFuture.supplyAsync(
                        () -> write(again, requestAck, requestFrom, attempt + 1), background);
                return nested.thenCompose(f -> f);
            } catch (RejectedExecutionException e) { // the background queue is full: give up here
                return CompletableFuture.<Long>failedFuture(QuorumException.LostToNewerVersions.queueFull(
                        ack, from, answers.size(), attempt, Coordinator.MAX_WRITE_ATTEMPTS));
            }
        });
    }
}
