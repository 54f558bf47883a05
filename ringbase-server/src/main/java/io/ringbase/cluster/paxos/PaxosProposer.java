package io.ringbase.cluster.paxos;

import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.clock.TimeSource;
import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.replication.Replica;
import io.ringbase.cluster.ring.Placement;
import io.ringbase.kv.CasResult;
import io.ringbase.kv.Condition;
import io.ringbase.kv.QuorumException;
import io.ringbase.storage.Entry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.LongConsumer;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The coordinator's side of a compare-and-set: rounds of single-decree Paxos over the key's
 * {@link Participants} (its replicas in the current ring, plus those a membership change in progress
 * adds), after Cassandra's lightweight transactions ({@code StorageProxy.cas}, {@code Paxos.Participants})
 * and Lamport's "Paxos Made Simple". Every phase is sent to all participants and needs
 * {@link Participants#required} positive answers: a majority of the natural replicas plus one per pending
 * one (a "majority" below). One round:
 * <ol>
 *   <li><b>Prepare/promise</b>: a ballot from the hybrid logical clock (unique per node by its node bits)
 *       to every participant; a majority must promise. Each promise carries the replica's accepted
 *       proposal, committed ballot and current entry (a pending replica's entry is not read: it may not
 *       hold its data yet).</li>
 *   <li>If a promise holds a proposal accepted above every committed ballot seen, an earlier round may
 *       have chosen it: it is proposed again under this ballot and committed, and the round starts over
 *       (Paxos's rule that a new ballot carries the highest accepted value).</li>
 *   <li><b>Read</b>: the current value is the newest of the natural promisers' entries (a majority of the
 *       natural replicas, so it includes every committed write: a commit reaches a majority before it is
 *       acknowledged).</li>
 *   <li>The condition is checked against it; if it fails, the answer is a refusal with that version
 *       (nothing was proposed, nothing written).</li>
 *   <li><b>Propose/accept</b> the new entry (its version above the current one) to every replica; a
 *       majority must accept.</li>
 *   <li><b>Commit</b> it to every replica (each applies it to its engine); a majority must answer before
 *       the write is acknowledged.</li>
 * </ol>
 * Four round trips where a quorum write under ABD takes two ({@code WriteProtocol.ABD}) and a one-round
 * write one. A round that loses its ballot (a replica promised a higher one) starts over after a random
 * backoff, until the deadline; the new entry is made once, so a proposal sent again is the same write
 * (same version and value) and applying it twice changes nothing.
 *
 * <p>When a round that had sent this write's proposal must start over, the next round learns its fate:
 * committed if it is the newest entry or its version is among some promiser's recent commits (the
 * majority that committed it meets this one, and every commit is on a whole majority before a round
 * decides on it); never committed, and never to be, if every promiser remembers back past it and none
 * has it (a later commit's ballot is above the proposal's). Only when the replicas do not remember that
 * far is the answer {@link QuorumException.CasTimeout} "may have been applied".
 *
 * <p>Every message carries the epoch of the placement the round chose its participants by; an acceptor
 * at a newer epoch answers {@link PaxosMessages.Stale}, and the round starts over once this node has
 * caught up (the placement supplier moves on when the metadata does), within the deadline. Thread-safe.
 */
public final class PaxosProposer {

    private static final Logger log = LoggerFactory.getLogger(PaxosProposer.class);

    /** The longest random backoff before a round that lost its ballot starts over, ms. */
    static final int MAX_BACKOFF_MS = 50;

    private final Supplier<Placement> placement;
    private final Function<NodeId, Replica> replicas;
    private final PaxosAcceptor local;
    private final LongConsumer sawEpoch;
    private final Executor localExecutor;
    private final HybridLogicalClock clock;
    private final TimeSource time;
    private final long timeoutMs;
    private final LongAdder rounds = new LongAdder();
    private final LongAdder contended = new LongAdder();

    /**
     * @param placement     the cluster's placement now
     * @param replicas      the replica of each node (a remote one takes {@link Replica#paxos})
     * @param local         this node's acceptor, called directly; it admits the calls as it admits a peer's
     *                      ({@link PaxosAdmission})
     * @param sawEpoch      told the newer epoch of a {@link PaxosMessages.Stale} answer, so that this node
     *                      fetches the newer metadata at once (a static cluster: ignores it)
     * @param localExecutor runs the local acceptor's calls (they wait for fsync)
     * @param timeoutMs     how long a compare-and-set may take in all, over its rounds, ms
     */
    public PaxosProposer(
            Supplier<Placement> placement,
            Function<NodeId, Replica> replicas,
            PaxosAcceptor local,
            LongConsumer sawEpoch,
            Executor localExecutor,
            HybridLogicalClock clock,
            TimeSource time,
            long timeoutMs) {
        if (timeoutMs <= 0) {
            throw new IllegalArgumentException("timeoutMs must be > 0, got " + timeoutMs);
        }
        this.placement = placement;
        this.replicas = replicas;
        this.local = local;
        this.sawEpoch = sawEpoch;
        this.localExecutor = localExecutor;
        this.clock = clock;
        this.time = time;
        this.timeoutMs = timeoutMs;
    }

    /**
     * How long a compare-and-set may take over all its Paxos rounds: four replica timeouts (one round's
     * four round trips), at least one second, ms. A round starts only before it.
     */
    public static long deadlineMs(long replicaTimeoutMs) {
        return Math.max(1_000, 4 * replicaTimeoutMs);
    }

    /**
     * The longest a compare-and-set runs, ms: its deadline, plus the four replica timeouts of a round that
     * started just before it. No round that began before a moment still runs this long after it.
     */
    public static long longestMs(long replicaTimeoutMs) {
        return deadlineMs(replicaTimeoutMs) + 4 * replicaTimeoutMs;
    }

    /** Prepare rounds started so far. */
    public long rounds() {
        return rounds.sum();
    }

    /** Rounds that lost their ballot to another proposer and started over. */
    public long contended() {
        return contended.sum();
    }

    /**
     * Writes {@code value} (a tombstone if {@code null}) under {@code key} if {@code condition} holds,
     * linearizably among the conditional writes of the key.
     *
     * @param expiresAtMs Unix ms after which the value is gone, or {@link Entry#NO_EXPIRY}
     * @return completes with the outcome, or fails with {@link QuorumException.CasTimeout}
     */
    public CompletableFuture<CasResult> cas(
            byte[] key, byte @Nullable [] value, long expiresAtMs, Condition condition) {
        return cas(key, value, false, expiresAtMs, condition);
    }

    /**
     * {@link #cas(byte[], byte[], long, Condition)} of a value that may be typed: with {@code typed},
     * {@code value} is the stored value, a {@code storage.ContentType} prefix then the client's bytes.
     */
    public CompletableFuture<CasResult> cas(
            byte[] key, byte @Nullable [] value, boolean typed, long expiresAtMs, Condition condition) {
        Cas cas = new Cas(key, value, value != null && typed, value == null ? Entry.NO_EXPIRY : expiresAtMs, condition);
        cas.round();
        return cas.result;
    }

    /** One compare-and-set: its rounds until a decision or the deadline. */
    private final class Cas {
        final byte[] key;
        final byte @Nullable [] value;
        final boolean typed;
        final long expiresAtMs;
        final Condition condition;
        final long deadlineNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        final CompletableFuture<CasResult> result = new CompletableFuture<>();

        @Nullable
        Entry proposal; // made once the condition first held; sent again unchanged

        boolean proposed; // a proposal of it was sent: its fate is unknown until a round sees it
        int roundsRun;
        int from = 1;
        int needed = 1;
        String last = "none";

        Cas(byte[] key, byte @Nullable [] value, boolean typed, long expiresAtMs, Condition condition) {
            this.key = key;
            this.value = value;
            this.typed = typed;
            this.expiresAtMs = expiresAtMs;
            this.condition = condition;
        }

        void round() {
            if (System.nanoTime() - deadlineNanos > 0) {
                result.completeExceptionally(
                        new QuorumException.CasTimeout(needed, from, timeoutMs, roundsRun, proposed, last));
                return;
            }
            roundsRun++;
            rounds.increment();
            Participants targets = Participants.of(placement.get(), key);
            from = targets.targets().size();
            needed = targets.required();
            long ballot = clock.now();
            var _ = gather(
                            targets,
                            new PaxosMessages.Prepare(key, ballot, targets.epoch()),
                            r -> ((PaxosMessages.Promise) r).ok())
                    .whenComplete((answers, failure) -> {
                        if (failure != null) {
                            again("prepare: " + reason(failure));
                        } else {
                            promised(targets, ballot, answers);
                        }
                    });
        }

        private void promised(Participants targets, long ballot, List<Answer> answers) {
            long maxCommitted = 0;
            PaxosMessages.Promise inProgress = null;
            Entry current = null;
            for (Answer a : answers) {
                PaxosMessages.Promise p = (PaxosMessages.Promise) a.reply();
                if (p.proposal() != null && (inProgress == null || p.accepted() > inProgress.accepted())) {
                    inProgress = p;
                }
                // a pending replica may not hold its data yet: its read is ignored, and so is its committed
                // ballot, which must never be paired with the natural replicas' entries (a commit that has
                // reached only it would pass for the latest while they still hold the value before it, and
                // hide the proposal they accepted). Every commit reaches a majority of the natural replicas,
                // which this majority meets, so nothing committed is missed.
                if (!targets.isPending(a.node())) {
                    maxCommitted = Math.max(maxCommitted, p.committed());
                    current = Entry.newer(current, p.current());
                }
            }
            if (inProgress != null && inProgress.accepted() > maxCommitted) {
                Entry unfinished = java.util.Objects.requireNonNull(inProgress.proposal());
                var _ = proposeAndCommit(targets, ballot, unfinished).whenComplete((v, failure) -> {
                    if (failure != null) {
                        again("finishing an earlier proposal: " + reason(failure));
                    } else if (unfinished.equals(proposal)) {
                        result.complete(CasResult.applied(unfinished.version()));
                    } else {
                        var _ = CompletableFuture.runAsync(this::round); // at once, off the answering thread
                    }
                });
                return;
            }
            // the latest commit must be on every replica of this majority before anything is decided on it:
            // then a later round that sees none of its own proposal in the promises' recent commits knows
            // it was never committed (Cassandra sends the most recent commit to the promisers that lack it)
            List<NodeId> behind = new ArrayList<>();
            for (Answer a : answers) {
                if (((PaxosMessages.Promise) a.reply()).committed() < maxCommitted) {
                    behind.add(a.node());
                }
            }
            if (!behind.isEmpty() && current != null) {
                Entry latest = current;
                long latestBallot = maxCommitted;
                var _ = gather(
                                behind,
                                behind.size(),
                                targets.epoch(),
                                new PaxosMessages.Commit(latestBallot, latest, targets.epoch()),
                                r -> true)
                        .whenComplete((done, failure) -> {
                            if (failure != null) {
                                again("sending the latest commit to replicas behind: " + reason(failure));
                            } else {
                                decide(targets, ballot, answers, latest);
                            }
                        });
                return;
            }
            decide(targets, ballot, answers, current);
        }

        /** The round's read is done and the latest commit is on the whole majority: check and propose. */
        private void decide(Participants targets, long ballot, List<Answer> answers, @Nullable Entry current) {
            Entry mine = proposal;
            if (mine != null) {
                boolean seen = mine.equals(current);
                boolean covered = true;
                for (Answer a : answers) {
                    long[] recent = ((PaxosMessages.Promise) a.reply()).recent();
                    seen |= PaxosState.contains(recent, mine.version());
                    covered &= recent.length < PaxosState.RECENT || min(recent) < mine.version();
                }
                if (seen) { // a round (this one's earlier, or another proposer's) committed it
                    result.complete(CasResult.applied(mine.version()));
                    return;
                }
                if (!covered) { // it may have been committed before the oldest commit the replicas remember
                    result.completeExceptionally(new QuorumException.CasTimeout(
                            needed,
                            from,
                            timeoutMs,
                            roundsRun,
                            true,
                            "more commits since its proposal than the replicas remember"));
                    return;
                }
                // never committed, and never will be: a later commit's ballot is above its proposal's
            }
            long nowMs = time.currentTimeMillis();
            if (!condition.holds(current, nowMs)) {
                result.complete(CasResult.refused(
                        current != null && current.isLive(nowMs) ? current.version() : CasResult.NO_VALUE));
                return;
            }
            if (mine == null || (current != null && current.version() >= mine.version())) {
                if (current != null) {
                    clock.observeStored(current.version()); // the new version must be above the one checked
                }
                mine = new Entry(key, clock.now(), expiresAtMs, value, typed);
                proposal = mine;
            }
            proposed = true;
            Entry sent = mine;
            var _ = proposeAndCommit(targets, ballot, sent).whenComplete((v, failure) -> {
                if (failure != null) {
                    again("propose: " + reason(failure));
                } else {
                    result.complete(CasResult.applied(sent.version()));
                }
            });
        }

        private CompletableFuture<Void> proposeAndCommit(Participants targets, long ballot, Entry entry) {
            long epoch = targets.epoch();
            return gather(
                            targets,
                            new PaxosMessages.Propose(ballot, entry, epoch),
                            r -> ((PaxosMessages.Accepted) r).ok())
                    .thenCompose(accepted -> gather(targets, new PaxosMessages.Commit(ballot, entry, epoch), r -> true))
                    .thenApply(committed -> null);
        }

        /** Starts over after a random backoff (Cassandra's contention backoff), or gives up at the deadline. */
        private void again(String why) {
            last = why;
            contended.increment();
            long delayMs =
                    1L + ThreadLocalRandom.current().nextInt(Math.min(MAX_BACKOFF_MS, 1 << Math.min(roundsRun, 5)));
            log.debug("compare-and-set round {} of a key starts over in {} ms: {}", roundsRun, delayMs, why);
            // round() only sends (never blocks), so the shared delayed executor may run it
            CompletableFuture.delayedExecutor(delayMs, TimeUnit.MILLISECONDS).execute(this::round);
        }
    }

    /**
     * Sends {@code request} to every one of the participants; completes with the first
     * {@link Participants#required} answers that {@code ok} takes, or fails once that many can no longer be
     * had (answers refused, replicas failed or timed out), or at once when a replica answers that it is at
     * a newer epoch. A refusal's higher ballot is observed by the clock, so the next is above it.
     */
    private CompletableFuture<List<Answer>> gather(
            Participants targets, PaxosMessages.Request request, Predicate<PaxosMessages.Reply> ok) {
        return gather(targets.targets(), targets.required(), targets.epoch(), request, ok);
    }

    /** One replica's answer to a request of a round. */
    private record Answer(NodeId node, PaxosMessages.Reply reply) {}

    /**
     * As {@link #gather(Participants, PaxosMessages.Request, Predicate)}: to {@code targets}, completing with
     * {@code needed} answers; {@code epoch} is the round's.
     */
    private CompletableFuture<List<Answer>> gather(
            List<NodeId> targets,
            int needed,
            long epoch,
            PaxosMessages.Request request,
            Predicate<PaxosMessages.Reply> ok) {
        CompletableFuture<List<Answer>> out = new CompletableFuture<>();
        List<Answer> oks = new ArrayList<>(targets.size());
        int[] refused = {0, 0}; // refused, failed
        byte[] encoded = PaxosMessages.encode(request);
        NodeId self = placement.get().self();
        for (NodeId t : targets) {
            var _ = send(t, self, request, encoded).whenComplete((reply, failure) -> {
                synchronized (oks) {
                    if (out.isDone()) {
                        return;
                    }
                    if (reply instanceof PaxosMessages.Stale stale) {
                        // the participants may be the wrong ones: the round ends here, nothing decided on it
                        sawEpoch.accept(stale.epoch());
                        out.completeExceptionally(new IllegalStateException(
                                t + " is at epoch " + stale.epoch() + ", the round at " + epoch));
                        return;
                    }
                    if (failure == null && ok.test(reply)) {
                        oks.add(new Answer(t, reply));
                        if (oks.size() >= needed) {
                            out.complete(List.copyOf(oks));
                        }
                        return;
                    }
                    if (failure == null) {
                        refused[0]++;
                        observeRefusal(reply);
                    } else {
                        refused[1]++;
                    }
                    if (targets.size() - refused[0] - refused[1] < needed) {
                        out.completeExceptionally(new IllegalStateException(oks.size() + " of " + targets.size()
                                + " replicas agreed, " + needed + " needed (" + refused[0]
                                + " promised a higher ballot, "
                                + refused[1] + " failed or timed out)"));
                    }
                }
            });
        }
        return out;
    }

    private void observeRefusal(PaxosMessages.Reply reply) {
        long promised = switch (reply) {
            case PaxosMessages.Promise p -> p.promised();
            case PaxosMessages.Accepted a -> a.promised();
            case PaxosMessages.Committed c -> 0;
            case PaxosMessages.Stale s -> 0;
        };
        if (promised > 0) {
            try {
                clock.observe(promised); // the next ballot is above it
            } catch (io.ringbase.clock.ClockOffsetException e) {
                log.debug("a refusal's ballot is too far ahead of this node's clock: {}", e.getMessage());
            }
        }
    }

    private CompletableFuture<PaxosMessages.Reply> send(
            NodeId target, NodeId self, PaxosMessages.Request request, byte[] encoded) {
        if (target.equals(self)) {
            try {
                return CompletableFuture.supplyAsync(
                        () -> {
                            try {
                                return local.handle(request);
                            } catch (IOException e) {
                                throw new UncheckedIOException(e);
                            }
                        },
                        localExecutor);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                return CompletableFuture.failedFuture(e); // the local Paxos queue is full: counts as failed
            }
        }
        return replicas.apply(target).paxos(encoded).thenApply(PaxosMessages::decodeReply);
    }

    private static long min(long[] values) {
        long m = Long.MAX_VALUE;
        for (long v : values) {
            m = Math.min(m, v);
        }
        return m;
    }

    private static String reason(Throwable t) {
        Throwable c = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
        return String.valueOf(c.getMessage());
    }
}
