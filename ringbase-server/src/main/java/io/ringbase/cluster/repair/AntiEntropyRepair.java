package io.ringbase.cluster.repair;

import io.ringbase.clock.ClockOffsetException;
import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.replication.EntryPage;
import io.ringbase.cluster.replication.ReplicaException;
import io.ringbase.storage.Entry;
import io.ringbase.storage.EntryFormat;
import io.ringbase.storage.Keys;
import io.ringbase.storage.StorageEngine;
import io.ringbase.throttle.ByteRateLimiter;
import io.ringbase.throttle.Sleeper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Anti-entropy repair of this node against its peers (Dynamo, SOSP 2007, section 4.7; Cassandra's
 * repair), what {@code POST /v0/admin/repair} starts.
 *
 * <p>For each peer and each of the 16 hash ranges ({@link MerkleTree}): build the local tree of the
 * keys shared with the peer, fetch the peer's tree of the same keys, and diff them. For the differing
 * leaves, walk the local and the peer's entries of those leaves together in key order, one page of
 * each at a time: a key only the peer has, or has newer, is applied locally ({@link StorageEngine#apply}
 * keeps the newer version by itself); a key only this node has, or has newer, is written to the peer;
 * identical entries are left alone. So both sides converge, and only keys that differ are counted
 * (entries of a differing leaf that are equal on both sides still cross the network once).
 *
 * <p>One run at a time, on one background thread of its own (it blocks on the peers' futures there,
 * never on a request path). An unreachable or silent peer is logged at WARN and its remaining ranges
 * are counted as failed; the run goes on with the next peer, and ends {@link RepairStatus.Outcome#PARTIAL}.
 * Memory: one Merkle tree per side and one page per side at a time.
 *
 * <p>Repair must complete on every node within the tombstone grace period (see
 * {@code docs/design.md}, "Tombstone grace"), or a replica that missed a delete can bring the key back.
 *
 * <p>Thread-safe.
 */
public final class AntiEntropyRepair implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(AntiEntropyRepair.class);

    private final RepairSource local;
    private final StorageEngine engine;
    private final HybridLogicalClock clock;
    private final List<RepairPeer> peers;
    /** Paces the pages pulled from peers at {@link RepairOptions#bytesPerSecond()}. */
    private final ByteRateLimiter limiter;

    private final RepairOptions options;
    private final LongSupplier wallClockMs;
    private volatile boolean closing;
    private volatile CompletableFuture<?> waitingOn;
    private final ExecutorService worker = Executors.newSingleThreadExecutor(
            Thread.ofPlatform().name("repair").daemon().factory());

    private boolean running; // guarded by this
    private Progress current; // guarded by this; written counters are volatile
    private RepairStatus.Run lastRun; // guarded by this

    /**
     * @param local       this node's repair source (its {@link RepairSource#self()} is this node)
     * @param engine      the local engine entries from peers are applied to
     * @param clock       this node's clock, which observes the version of every entry received, so it
     *                    never issues a version below one the node stores (as replica writes do)
     * @param peers       the other nodes to repair against, each once; not this node
     * @param options     page size, timeouts
     * @param wallClockMs Unix epoch ms, for the run timestamps
     * @throws IllegalArgumentException if a peer is this node or appears twice
     */
    public AntiEntropyRepair(
            RepairSource local,
            StorageEngine engine,
            HybridLogicalClock clock,
            List<RepairPeer> peers,
            RepairOptions options,
            LongSupplier wallClockMs) {
        this.local = Objects.requireNonNull(local, "local");
        this.engine = Objects.requireNonNull(engine, "engine");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.peers = List.copyOf(peers);
        this.options = Objects.requireNonNull(options, "options");
        this.limiter = new ByteRateLimiter(this.options.bytesPerSecond(), System::nanoTime, Sleeper.SYSTEM);
        this.wallClockMs = Objects.requireNonNull(wallClockMs, "wallClockMs");
        if (this.peers.stream().map(RepairPeer::node).distinct().count() != this.peers.size()) {
            throw new IllegalArgumentException("a peer appears twice");
        }
        for (RepairPeer p : this.peers) {
            if (p.node().equals(local.self())) {
                throw new IllegalArgumentException("node " + p.node() + " cannot repair against itself");
            }
        }
    }

    /**
     * Starts a repair run in the background.
     *
     * @return {@code false} if one is already running (nothing is started then)
     * @throws IllegalStateException if this repair service is closed
     */
    public synchronized boolean start() {
        if (running) {
            return false;
        }
        Progress p = new Progress(wallClockMs.getAsLong(), peers.size() * MerkleTree.RANGES);
        try {
            worker.execute(() -> run(p));
        } catch (RejectedExecutionException e) {
            throw new IllegalStateException("repair service is closed", e);
        }
        running = true;
        current = p;
        return true;
    }

    /** The current state and progress. */
    public synchronized RepairStatus status() {
        if (running) {
            return new RepairStatus(RepairStatus.State.RUNNING, current.snapshot(0, null), lastRun);
        }
        return new RepairStatus(RepairStatus.State.IDLE, lastRun == null ? RepairStatus.Run.NONE : lastRun, lastRun);
    }

    /** {@link #status()} as JSON ({@link RepairStatus#toJson}), the body of {@code GET /v0/admin/repair}. */
    public String toJson() {
        return status().toJson();
    }

    /**
     * Waits until no run is under way.
     *
     * @param timeoutMs how long to wait at most, ms
     * @return whether the repair is idle
     * @throws InterruptedException if interrupted while waiting
     */
    public synchronized boolean awaitIdle(long timeoutMs) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (running) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left <= 0) {
                return false;
            }
            wait(left);
        }
        return true;
    }

    /** Aborts a running repair (it ends {@link RepairStatus.Outcome#ABORTED}) and stops the thread. */
    @Override
    public void close() {
        // No interrupt: an interrupt during engine.apply would close the WAL's file channel under the
        // engine. Instead the run sees the flag between steps, and the call it waits on is cancelled.
        closing = true;
        CompletableFuture<?> w = waitingOn;
        if (w != null) {
            w.cancel(false);
        }
        worker.shutdown();
        try {
            if (!worker.awaitTermination(10, TimeUnit.SECONDS)) {
                log.warn("repair thread did not stop within 10 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ---------------------------------------------------------------- the run

    private void run(Progress p) {
        log.info("repair started: {} peers, {} ranges", peers.size(), p.rangesTotal);
        RepairStatus.Outcome outcome = RepairStatus.Outcome.ABORTED; // unless the loop completes
        try {
            for (RepairPeer peer : peers) {
                for (int range = 0; range < MerkleTree.RANGES; range++) {
                    if (closing || Thread.currentThread().isInterrupted()) {
                        throw new InterruptedException();
                    }
                    try {
                        repairRange(peer, range, p);
                        p.rangeDone();
                    } catch (ReplicaException.Unreachable | ReplicaException.Timeout e) {
                        int skipped = MerkleTree.RANGES - range;
                        log.warn(
                                "repair: peer {} did not answer ({}); skipping its {} remaining ranges",
                                peer.node(),
                                e.getMessage(),
                                skipped);
                        p.fail(skipped, e.getMessage());
                        break;
                    } catch (ReplicaException | IOException | ClockOffsetException | RuntimeException e) {
                        log.warn("repair: range {} with peer {} failed", range, peer.node(), e);
                        p.fail(1, "range " + range + " with " + peer.node() + ": " + e.getMessage());
                    }
                }
            }
            outcome = p.rangesFailed > 0 ? RepairStatus.Outcome.PARTIAL : RepairStatus.Outcome.OK;
        } catch (InterruptedException e) {
            p.lastError = "aborted by shutdown";
        } finally {
            RepairStatus.Run run = p.snapshot(wallClockMs.getAsLong(), outcome);
            log.info(
                    "repair finished ({}): {}/{} ranges ({} failed), {} keys received, {} keys sent",
                    outcome,
                    run.rangesDone(),
                    run.rangesTotal(),
                    run.rangesFailed(),
                    run.keysReceived(),
                    run.keysSent());
            synchronized (this) {
                lastRun = run;
                running = false;
                notifyAll();
            }
        }
    }

    /** Compares and streams one range with one peer; see the class doc. */
    private void repairRange(RepairPeer peer, int range, Progress p)
            throws ReplicaException, IOException, InterruptedException, ClockOffsetException {
        p.refusedInRange = null;
        NodeId self = local.self();
        MerkleTree mine = local.tree(range, peer.node());
        MerkleTree theirs = await(peer, peer.tree(range, self));
        BitSet leaves = mine.diff(theirs);
        if (leaves.isEmpty()) {
            return;
        }
        int pageBytes = options.pageBytes();
        Cursor ours = new Cursor(start -> local.entries(range, peer.node(), leaves, start, pageBytes));
        Cursor remote = new Cursor(start -> {
            EntryPage page = await(peer, peer.entries(range, self, leaves, start, pageBytes));
            long bytes = 0;
            for (Entry e : page.entries()) {
                bytes += EntryFormat.encodedSize(e);
            }
            limiter.acquire(bytes); // the peer's entries are what crosses the network
            return page;
        });
        List<CompletableFuture<Void>> sending = new ArrayList<>();
        while (ours.peek() != null || remote.peek() != null) {
            Entry a = ours.peek();
            Entry b = remote.peek();
            int c = a == null ? 1 : b == null ? -1 : Keys.compare(a.key(), b.key());
            if (c < 0) {
                send(peer, ours.next(), sending, p);
            } else if (c > 0) {
                receive(remote.next(), p);
            } else {
                ours.next();
                remote.next();
                int newer = Entry.compareNewness(a, b);
                if (newer > 0) {
                    send(peer, a, sending, p);
                } else if (newer < 0) {
                    receive(b, p);
                }
            }
        }
        drain(peer, sending, p);
        if (p.refusedInRange != null) {
            throw p.refusedInRange; // the rest of the range was repaired; the range counts as failed
        }
    }

    /**
     * Applies an entry the peer has newer, unless its version is too far ahead of this node's clock
     * ({@link HybridLogicalClock#observe} refuses it and logs): then it is skipped and counted, and the
     * range fails at its end (a later run, once the clocks agree, copies it).
     */
    private void receive(Entry e, Progress p) throws IOException {
        try {
            clock.observe(e.version());
        } catch (ClockOffsetException refused) {
            if (p.refusedInRange == null) {
                p.refusedInRange = refused;
            }
            return;
        }
        engine.apply(e);
        p.keyReceived();
    }

    private void send(RepairPeer peer, Entry e, List<CompletableFuture<Void>> sending, Progress p)
            throws ReplicaException, InterruptedException {
        sending.add(peer.write(e));
        if (sending.size() >= options.writesInFlight()) {
            drain(peer, sending, p);
        }
    }

    private void drain(RepairPeer peer, List<CompletableFuture<Void>> sending, Progress p)
            throws ReplicaException, InterruptedException {
        for (CompletableFuture<Void> f : sending) {
            await(peer, f);
            p.keySent();
        }
        sending.clear();
    }

    /** Waits for a peer's answer, at most {@link RepairOptions#callTimeoutMs}; failures as ReplicaException. */
    private <T> T await(RepairPeer peer, CompletableFuture<T> answer) throws ReplicaException, InterruptedException {
        waitingOn = answer;
        try {
            if (closing) {
                throw new InterruptedException("repair closing");
            }
            return answer.get(options.callTimeoutMs(), TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.CancellationException e) {
            if (closing) {
                throw new InterruptedException("repair closing");
            }
            throw new ReplicaException.Failed(peer.node(), "repair call cancelled", e);
        } catch (TimeoutException e) {
            answer.cancel(false);
            throw new ReplicaException.Timeout(peer.node(), options.callTimeoutMs());
        } catch (ExecutionException e) {
            if (e.getCause() instanceof ReplicaException re) {
                throw re;
            }
            throw new ReplicaException.Failed(peer.node(), "repair call failed", e.getCause());
        } finally {
            waitingOn = null;
        }
    }

    /** Fetches one page of entries starting at a key. */
    private interface PageSource {
        EntryPage fetch(byte[] start) throws ReplicaException, IOException, InterruptedException;
    }

    /** Walks the pages of one side in key order, holding one page at a time. */
    private static final class Cursor {
        private final PageSource source;
        private List<Entry> page = List.of();
        private int index;
        private byte[] next = new byte[0]; // start of the next page, null once exhausted

        Cursor(PageSource source) {
            this.source = source;
        }

        /** The next entry without consuming it, or {@code null} at the end. */
        Entry peek() throws ReplicaException, IOException, InterruptedException {
            while (index == page.size() && next != null) {
                EntryPage fetched = source.fetch(next);
                page = fetched.entries();
                index = 0;
                next = fetched.next();
            }
            return index < page.size() ? page.get(index) : null;
        }

        Entry next() throws ReplicaException, IOException, InterruptedException {
            Entry e = peek();
            index++;
            return e;
        }
    }

    /**
     * Counters of the run under way; written by the repair thread only, so their read-modify-writes need
     * no atomicity: volatile only lets status readers see them without a lock.
     */
    @SuppressWarnings("NonAtomicVolatileUpdate")
    private static final class Progress {
        final long startedAtMs;
        final int rangesTotal;
        volatile int rangesDone;
        volatile int rangesFailed;
        volatile long keysReceived;
        volatile long keysSent;
        volatile String lastError;
        /** The first entry of the current range whose version this node's clock refused, or null. */
        ClockOffsetException refusedInRange;

        Progress(long startedAtMs, int rangesTotal) {
            this.startedAtMs = startedAtMs;
            this.rangesTotal = rangesTotal;
        }

        void rangeDone() {
            rangesDone++;
        }

        void keyReceived() {
            keysReceived++;
        }

        void keySent() {
            keysSent++;
        }

        void fail(int ranges, String error) {
            rangesDone += ranges;
            rangesFailed += ranges;
            lastError = error;
        }

        RepairStatus.Run snapshot(long finishedAtMs, RepairStatus.Outcome outcome) {
            return new RepairStatus.Run(
                    startedAtMs,
                    finishedAtMs,
                    rangesDone,
                    rangesFailed,
                    rangesTotal,
                    keysReceived,
                    keysSent,
                    outcome,
                    lastError);
        }
    }
}
