package io.ringbase.cluster.paxos;

import io.ringbase.clock.ClockOffsetException;
import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.storage.Entry;
import io.ringbase.storage.StorageEngine;
import java.io.IOException;
import java.util.Arrays;

/**
 * A replica's side of Paxos (the acceptor and learner of "Paxos Made Simple"), for every key it
 * replicates. Each request is decided and its new state made durable ({@link PaxosStore}) under the lock
 * of the key's stripe before the answer leaves, so that:
 * <ul>
 *   <li>a PREPARE of ballot b is promised only if b is above every ballot promised for the key; the
 *       promise carries the highest accepted ballot and proposal, the highest committed ballot, and the
 *       newest entry the engine holds (the round's read, Cassandra's "read at quorum in the promise");</li>
 *   <li>a PROPOSE of ballot b is accepted only if no ballot above b was promised;</li>
 *   <li>a COMMIT applies its entry to the engine (versions decide, so a repeated commit changes nothing)
 *       and then records the ballot as committed.</li>
 * </ul>
 * A request this node's {@link PaxosAdmission} turns away is answered {@link PaxosMessages.Stale} (an older
 * epoch than this node's) or refused ({@link PaxosRefusedException}) before any state is read. Blocks on
 * fsync: call it from a worker, never an event loop. Thread-safe.
 */
public final class PaxosAcceptor {

    /** Locks by key hash: one key's rounds are serialized, unrelated keys rarely wait for each other. */
    static final int STRIPES = 256;

    private final StorageEngine engine;
    private final PaxosStore store;
    private final HybridLogicalClock clock;
    private final PaxosAdmission admission;
    private final Object[] stripes = new Object[STRIPES];

    /** An acceptor that answers every request ({@link PaxosAdmission#OPEN}): a node alone, tests. */
    public PaxosAcceptor(StorageEngine engine, PaxosStore store, HybridLogicalClock clock) {
        this(engine, store, clock, PaxosAdmission.OPEN);
    }

    /**
     * @param engine    the node's data engine: the read of a promise, the write of a commit
     * @param store     this node's Paxos state; the caller keeps ownership
     * @param clock     observes every ballot and committed version, so this node never issues a lower one
     * @param admission which requests this node answers now
     */
    public PaxosAcceptor(StorageEngine engine, PaxosStore store, HybridLogicalClock clock, PaxosAdmission admission) {
        this.engine = engine;
        this.store = store;
        this.clock = clock;
        this.admission = admission;
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new Object();
        }
    }

    /**
     * Answers an encoded request ({@link PaxosMessages}) with an encoded reply.
     *
     * @throws IllegalArgumentException if the request does not decode
     * @throws PaxosRefusedException    if this node takes no part in the request now (nothing read or changed)
     * @throws IOException              as the engine's or the store's reads and writes (nothing answered:
     *                                  the proposer counts it as a failed replica)
     */
    public byte[] handle(byte[] request) throws IOException {
        return PaxosMessages.encode(handle(PaxosMessages.decodeRequest(request)));
    }

    /**
     * Advances the clock past a ballot or version from a proposer, as every replica write does; one too
     * far ahead of this node's wall clock (a skewed proposer) is refused, so it cannot drag this node's
     * clock along.
     *
     * @throws IOException (a {@link ClockOffsetException}) if it is too far ahead: the request fails here
     */
    private void observe(long versionOrBallot) throws IOException {
        try {
            clock.observe(versionOrBallot);
        } catch (ClockOffsetException e) {
            throw new IOException("Paxos request refused: " + e.getMessage(), e);
        }
    }

    /** Answers a decoded request; as {@link #handle(byte[])}. */
    public PaxosMessages.Reply handle(PaxosMessages.Request request) throws IOException {
        PaxosMessages.Stale stale = admission.stale(request);
        if (stale != null) {
            return stale;
        }
        String refusal = admission.refusal(request);
        if (refusal != null) {
            throw new PaxosRefusedException(refusal);
        }
        byte[] key = request.key();
        synchronized (stripes[Math.floorMod(Arrays.hashCode(key), STRIPES)]) {
            PaxosStore.Stored stored = store.load(key);
            PaxosState s = stored.state();
            return switch (request) {
                case PaxosMessages.Prepare p -> {
                    observe(p.ballot());
                    if (p.ballot() <= s.promised()) {
                        yield new PaxosMessages.Promise(
                                false, s.promised(), s.accepted(), s.proposal(), s.committed(), null, s.recent());
                    }
                    PaxosState next = s.withPromised(p.ballot());
                    store.save(key, stored, next);
                    Entry current = engine.get(key);
                    yield new PaxosMessages.Promise(
                            true,
                            next.promised(),
                            next.accepted(),
                            next.proposal(),
                            next.committed(),
                            current,
                            next.recent());
                }
                case PaxosMessages.Propose p -> {
                    if (p.ballot() < s.promised()) {
                        yield new PaxosMessages.Accepted(false, s.promised());
                    }
                    store.save(key, stored, s.withAccepted(p.ballot(), p.proposal()));
                    yield new PaxosMessages.Accepted(true, p.ballot());
                }
                case PaxosMessages.Commit c -> {
                    observe(c.entry().version());
                    engine.apply(c.entry()); // an older version than the stored one changes nothing
                    PaxosState next = s.withCommitted(c.ballot(), c.entry().version());
                    if (!next.equals(s)) {
                        store.save(key, stored, next);
                    }
                    yield new PaxosMessages.Committed();
                }
            };
        }
    }
}
