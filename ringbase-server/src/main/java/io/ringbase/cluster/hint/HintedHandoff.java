package io.ringbase.cluster.hint;

import io.ringbase.clock.TimeSource;
import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.replication.Replica;
import io.ringbase.cluster.ring.Placement;
import io.ringbase.storage.Entry;
import io.ringbase.storage.WalSyncPolicy;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hinted-handoff service of one coordinator: takes hints for replicas that did not answer a write,
 * stores them in a {@link HintStore}, and delivers them when the replica answers again.
 *
 * <ul>
 *   <li>{@link #hint} never blocks (the coordinator calls it on an event loop): it puts the hint on a
 *       bounded queue ({@link HintOptions#queueCapacity()}) that one writer thread adds to the store;
 *       when the queue is full the hint is dropped, counted and logged. The future it returns completes
 *       once the writer has appended the hint to the store's WAL (durable per the node's WAL policy) or
 *       dropped it; the coordinator holds a write's answer until then.</li>
 *   <li>Hints are addressed by the target's URL ({@link NodeId#toString()}), not its position in
 *       {@code --cluster}: a reordered list delivers every hint to the node it was meant for; hints
 *       for a URL no longer in the list stay until it is back (or age out).</li>
 *   <li>Every {@value #PROBE_INTERVAL_MS} ms a scheduler thread probes ({@link Replica#probe()}) each
 *       target with pending hints that is not being delivered to (a probe still unanswered after
 *       {@value #PROBE_RETRY_MS} ms no longer holds back the next), so a target that comes back is
 *       noticed within about 0.5 s and delivery starts at once (the requirement is within 2 s).</li>
 *   <li>A successful probe starts a {@link DeliveryRound} for that target on a virtual thread (one per
 *       target at a time): at most {@link HintOptions#maxInFlight()} writes in flight, at most
 *       {@link HintOptions#maxPerSecond()} per second; each hint is removed once its write succeeded;
 *       the first failure ends the round and probing resumes.</li>
 * </ul>
 *
 * <p>Hints never count toward a request's {@code ack}: the coordinator decides its answer without them.
 * Threads are never interrupted (an interrupt would close the hint engine's WAL channel); they watch a
 * closing flag instead.
 */
public final class HintedHandoff implements Closeable {

    private static final Logger log = LoggerFactory.getLogger(HintedHandoff.class);

    /** How often targets with pending hints are probed, ms. */
    static final long PROBE_INTERVAL_MS = 500;
    /** After this long an unanswered probe no longer holds back the next one, ms. */
    static final long PROBE_RETRY_MS = 1000;
    /** How long {@link #close} waits for the writer to drain the queue and for rounds to stop, ms. */
    static final long CLOSE_WAIT_MS = 10_000;

    private static final long WRITER_POLL_MS = 100;

    private record Pending(NodeId target, Entry entry, CompletableFuture<Void> stored) {}

    /** Per-target delivery state. */
    private static final class Target {
        final NodeId node;
        final AtomicBoolean delivering = new AtomicBoolean();
        volatile long probeSentNanos; // 0 when no probe is outstanding
        volatile Thread round; // the last round's thread

        Target(NodeId node) {
            this.node = node;
        }
    }

    private final Supplier<Placement> placement;
    private final HintStore store;
    private final Function<NodeId, Replica> replicas;
    private final HintOptions options;
    private final ArrayBlockingQueue<Pending> queue;
    private final ConcurrentHashMap<String, Target> targets = new ConcurrentHashMap<>(); // by URL
    private final DropLog dropLog = new DropLog(log);
    private final Thread writer;
    private final ScheduledExecutorService prober = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("hint-prober").daemon().factory());

    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile boolean closing;

    private final AtomicLong droppedQueueFull = new AtomicLong();
    private final AtomicLong droppedWriteError = new AtomicLong();

    /**
     * A service over an open store; the bounds and pacing are the store's {@link HintStore#options()}.
     * Call {@link #start()} to run it.
     *
     * @param placement the cluster's placement now: hint targets are its nodes other than {@code self}
     * @param store     the hint store; closed by {@link #close()}
     * @param replicas  the remote replica of a node (called for every probe and round; may cache)
     */
    public HintedHandoff(Supplier<Placement> placement, HintStore store, Function<NodeId, Replica> replicas) {
        this.placement = Objects.requireNonNull(placement, "placement");
        this.store = Objects.requireNonNull(store, "store");
        this.replicas = Objects.requireNonNull(replicas, "replicas");
        this.options = store.options();
        this.queue = new ArrayBlockingQueue<>(options.queueCapacity());
        this.writer = Thread.ofPlatform().name("hint-writer").daemon().unstarted(this::writeLoop);
    }

    /**
     * Opens the store in {@code dir} (normally {@code <data-dir>/hints}) and a service over it, not yet
     * started.
     *
     * @param time the wall clock hints' ages are measured on
     * @throws IOException as {@link HintStore#open(Path, HintOptions, WalSyncPolicy, java.util.function.LongSupplier)}
     */
    public static HintedHandoff open(
            Path dir,
            Supplier<Placement> placement,
            Function<NodeId, Replica> replicas,
            HintOptions options,
            WalSyncPolicy walSync,
            TimeSource time)
            throws IOException {
        return new HintedHandoff(
                placement,
                HintStore.open(dir, options, walSync, time, i -> {
                    NodeId n = placement.get().node(i);
                    return n == null ? null : n.toString();
                }),
                replicas);
    }

    /** Starts the writer and the prober (hints stored before a restart are probed for at once). Idempotent. */
    public void start() {
        if (closing || !started.compareAndSet(false, true)) {
            return;
        }
        writer.start();
        var _ = prober.scheduleWithFixedDelay(
                this::probeAll, 0, PROBE_INTERVAL_MS, TimeUnit.MILLISECONDS); // close() ends it
    }

    /**
     * Hands {@code entry} over for delivery to {@code target}, which did not acknowledge it. Never
     * blocks: the hint is written to the store in the background, or dropped (counted and logged) if the
     * queue is full or the service is closed. Does not count toward any {@code ack}.
     *
     * @return completes (never exceptionally) once the hint is in the store's WAL, or was dropped; on
     *     the writer thread, so callbacks must not block
     * @throws IllegalArgumentException if {@code target} is this node
     */
    public CompletableFuture<Void> hint(NodeId target, Entry entry) {
        Objects.requireNonNull(entry, "entry");
        Placement now = placement.get();
        if (!target.equals(now.node(target.index()))) {
            // the node left the placement since the write began (a decommission or removal finished): it
            // holds none of the key's copies any more, so there is nothing to hand it
            log.debug("no hint for {}: not a node of the cluster at epoch {}", target, now.epoch());
            return CompletableFuture.completedFuture(null);
        }
        if (target.equals(now.self())) {
            throw new IllegalArgumentException("a node does not hint itself: " + target);
        }
        CompletableFuture<Void> stored = new CompletableFuture<>();
        if (closing || !queue.offer(new Pending(target, entry, stored))) {
            droppedQueueFull.incrementAndGet();
            dropLog.dropped(
                    target.toString(),
                    DropLog.Reason.QUEUE_FULL,
                    closing ? "service closed" : options.queueCapacity() + " hints queued");
            stored.complete(null);
        }
        return stored;
    }

    /** A snapshot of the counters and pending hints. */
    public HintStats stats() {
        return new HintStats(
                store.pendingHints(),
                store.totalBytes(),
                store.targets().size(),
                queue.size(),
                store.hintsStored(),
                store.hintsDelivered(),
                store.hintsDroppedAge(),
                store.hintsDroppedBytes(),
                store.hintsDroppedOversize(),
                droppedQueueFull.get(),
                droppedWriteError.get());
    }

    // ---------------------------------------------------------------- writer

    private void writeLoop() {
        while (true) {
            Pending p;
            try {
                p = closing ? queue.poll() : queue.poll(WRITER_POLL_MS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                return;
            }
            if (p == null) {
                if (closing) {
                    return;
                }
                continue;
            }
            try {
                store.add(p.target(), p.entry());
            } catch (IOException | RuntimeException e) {
                droppedWriteError.incrementAndGet();
                dropLog.dropped(p.target().toString(), DropLog.Reason.WRITE_ERROR, e);
            } finally {
                p.stored().complete(null);
            }
        }
    }

    // ---------------------------------------------------------------- probing and delivery

    private void probeAll() {
        try {
            long now = System.nanoTime();
            for (String url : store.targets()) {
                if (closing) {
                    return;
                }
                Placement at = placement.get();
                NodeId node = at.byUrl(url);
                if (node == null || node.equals(at.self())) {
                    continue; // hints for a node no longer in the list: they stay until the list has it again
                }
                Target t = targets.computeIfAbsent(url, u -> new Target(node));
                long sent = t.probeSentNanos;
                if (t.delivering.get() || (sent != 0 && now - sent < TimeUnit.MILLISECONDS.toNanos(PROBE_RETRY_MS))) {
                    continue;
                }
                t.probeSentNanos = now;
                try {
                    Replica replica = replicas.apply(t.node);
                    var _ = replica.probe().whenComplete((v, err) -> {
                        t.probeSentNanos = 0;
                        if (err == null) {
                            startRound(t, replica);
                        } else {
                            log.debug("probe of {} failed: {}", t.node, err.toString());
                        }
                    });
                } catch (RuntimeException e) {
                    t.probeSentNanos = 0;
                    log.error("could not probe {} for hint delivery; retrying in {} ms", t.node, PROBE_INTERVAL_MS, e);
                }
            }
        } catch (RuntimeException e) {
            log.error("hint probing failed; retrying in {} ms", PROBE_INTERVAL_MS, e); // keeps the schedule alive
        }
    }

    private void startRound(Target t, Replica replica) {
        if (closing || !t.delivering.compareAndSet(false, true)) {
            return;
        }
        t.round = Thread.ofVirtual().name("hint-delivery-" + t.node.index()).start(() -> runRound(t, replica));
    }

    private void runRound(Target t, Replica replica) {
        long startedNanos = System.nanoTime();
        try {
            DeliveryRound.Result r = new DeliveryRound(store, replica, options, () -> closing).run();
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos);
            if (r.failure() != null) {
                log.info(
                        "hint delivery to {} stopped after {} hints in {} ms: {}; probing it every {} ms",
                        t.node,
                        r.delivered(),
                        ms,
                        r.failure().toString(),
                        PROBE_INTERVAL_MS);
            } else if (r.delivered() > 0) {
                log.info("delivered {} hints to {} in {} ms", r.delivered(), t.node, ms);
            }
        } catch (InterruptedException e) {
            log.debug("hint delivery to {} interrupted", t.node);
        } catch (RuntimeException e) {
            log.error("hint delivery to {} failed; retrying after the next probe", t.node, e);
        } finally {
            t.delivering.set(false);
        }
    }

    // ---------------------------------------------------------------- shutdown

    /**
     * Stops probing and delivery (writes in flight are abandoned: their hints stay and are delivered
     * after the next start), lets the writer store what is queued (if started), waits up to
     * {@value #CLOSE_WAIT_MS} ms for the threads, and closes the store. Idempotent.
     *
     * @throws IOException if closing the store failed
     */
    @Override
    public void close() throws IOException {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        closing = true;
        prober.shutdown();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CLOSE_WAIT_MS);
        try {
            prober.awaitTermination(CLOSE_WAIT_MS, TimeUnit.MILLISECONDS);
            if (started.get()) {
                writer.join(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
            }
            for (Target t : targets.values()) {
                Thread round = t.round;
                if (round != null) {
                    round.join(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (writer.isAlive()) {
            log.warn("hint writer still busy after {} ms; closing the hint store under it", CLOSE_WAIT_MS);
        }
        int lost = 0;
        for (Pending p; (p = queue.poll()) != null; ) {
            lost++;
            p.stored().complete(null);
        }
        if (lost > 0) {
            droppedQueueFull.addAndGet(lost);
            log.warn("{} queued hints were not stored before shutdown; anti-entropy will repair their replicas", lost);
        }
        store.close();
    }
}
