package io.ringbase.cluster.elastic;

import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.metadata.ClusterMetadata;
import io.ringbase.cluster.metadata.MemberState;
import io.ringbase.cluster.metadata.Transformation;
import io.ringbase.cluster.paxos.PaxosProposer;
import io.ringbase.cluster.ring.Placement;
import io.ringbase.cluster.streaming.StreamFailedException;
import io.ringbase.cluster.streaming.StreamPlan;
import io.ringbase.cluster.streaming.StreamProgress;
import io.ringbase.os.ThreadPriority;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A joining node's side of its join (Cassandra's bootstrap, in CEP-21's steps): it is JOINING already (the
 * log committed its StartJoin), so every coordinator that has that epoch sends it the writes of the keys it
 * will own. Once every node has the epoch and older requests have ended, it streams those keys from the
 * nodes that hand them over (from all of them at once, sharing the rate limit), each from the one node it
 * displaces (a source that fails is replaced by the key's other old replicas), then commits FinishJoin:
 * from that epoch on, reads use it. A failed attempt leaves it JOINING and is retried; streams resume from
 * their cursors.
 *
 * <p>A replacement (REPLACING, Cassandra's {@code replace_address}) runs the same steps, but the node it
 * replaces is dead: it takes that node's keys from every other old replica of them, then commits
 * FinishReplace (it NORMAL, the replaced node LEFT).
 */
final class JoinDriver {

    private static final Logger log = LoggerFactory.getLogger(JoinDriver.class);

    /** Most sources streamed from at once. */
    static final int MAX_PARALLEL_STREAMS = 4;

    /** Wait between two attempts of a failed join, ms. */
    static final long RETRY_MS = 5_000;

    private JoinDriver() {}

    static void run(ElasticMembership membership, MoveContext context, Consumer<MoveStatus> status) {
        while (!membership.closing()
                && (membership.selfState() == MemberState.JOINING || membership.selfState() == MemberState.REPLACING)) {
            try {
                attempt(membership, context, status);
                return;
            } catch (InterruptedException e) {
                return;
            } catch (IOException | StreamFailedException | RuntimeException e) {
                log.error(
                        "joining failed: {}; this node stays JOINING and tries again in {} ms",
                        e.getMessage(),
                        RETRY_MS,
                        e);
                status.accept(new MoveStatus(
                        "join", "failed", membership.epoch(), 0, 0, 0, 0, 0, String.valueOf(e.getMessage())));
                try {
                    TimeUnit.MILLISECONDS.sleep(RETRY_MS);
                } catch (InterruptedException interrupted) {
                    return;
                }
            }
        }
    }

    private static void attempt(ElasticMembership membership, MoveContext context, Consumer<MoveStatus> status)
            throws IOException, InterruptedException, StreamFailedException {
        ClusterMetadata m = membership.metadata();
        NodeId self = membership.self();
        boolean replacing = membership.selfState() == MemberState.REPLACING;
        status.accept(new MoveStatus(kind(replacing), "waiting", m.epoch(), 0, 0, 0, 0, 0, ""));
        // the "mid" step outwaits every compare-and-set round of the epoch before START_*: none may overlap a
        // round of the epoch after FINISH_* (their participants' quorums need not meet; consecutive epochs'
        // do, design.md "Compare-and-set"); a replacement also serves with an empty Paxos state, so no round
        // may still count on a promise the dead node made
        long graceMs = PaxosProposer.longestMs(context.replicaTimeoutMs());
        Changes.awaitEveryoneAt(m, self, context, graceMs);
        Placement p = Placements.of(m, self);
        // a replacement takes the replaced node's keys from their other replicas: the replaced node is dead
        int replacedIndex = replacing ? membership.selfMember().orElseThrow().replaces() - 1 : -1;
        List<NodeId> sources = p.current().nodes().stream()
                .filter(n -> n.index() != replacedIndex)
                .toList();
        long started = System.nanoTime();
        // every source streams at once (their scans run on their own nodes); they share the rate limit
        int parallel = Math.min(sources.size(), MAX_PARALLEL_STREAMS);
        MoveContext shared = context.withStreaming(
                context.streaming().withBytesPerSecond(context.streaming().bytesPerSecond() / parallel));
        AtomicLong entriesDone = new AtomicLong();
        AtomicLong bytesDone = new AtomicLong();
        AtomicInteger streamsDone = new AtomicInteger();
        // SCHED_IDLE, as the sources' scans: the ingest takes only CPU time client requests leave idle
        ExecutorService streams = Executors.newFixedThreadPool(
                parallel, ThreadPriority.background("ringbase-stream", ThreadPriority.IDLE));
        try {
            List<Future<StreamProgress>> running = new ArrayList<>();
            for (NodeId source : sources) {
                running.add(streams.submit(() -> {
                    StreamProgress got = fromSource(shared, m, p, sources, source, self, replacing);
                    entriesDone.addAndGet(got.entries());
                    bytesDone.addAndGet(got.bytes());
                    status.accept(progress(
                            kind(replacing),
                            m,
                            streamsDone.incrementAndGet(),
                            sources.size(),
                            entriesDone.get(),
                            bytesDone.get(),
                            started,
                            "streaming"));
                    return got;
                }));
            }
            status.accept(progress(kind(replacing), m, 0, sources.size(), 0, 0, started, "streaming"));
            for (Future<StreamProgress> f : running) {
                try {
                    f.get();
                } catch (ExecutionException e) {
                    Throwable cause = e.getCause();
                    if (cause instanceof StreamFailedException failed) {
                        throw failed;
                    }
                    if (cause instanceof IOException io) {
                        throw io;
                    }
                    throw new IOException("streaming failed: " + cause, cause);
                }
            }
        } finally {
            streams.shutdownNow();
        }
        long entries = entriesDone.get();
        long bytes = bytesDone.get();
        int done = streamsDone.get();
        MoveStatus finished = progress(kind(replacing), m, done, sources.size(), entries, bytes, started, "finishing");
        status.accept(finished);
        log.info(
                "{} streaming done: {} entries, {} MB from {} nodes in {} s ({} MB/s)",
                kind(replacing),
                entries,
                String.format("%.1f", bytes / 1e6),
                sources.size(),
                String.format("%.1f", finished.elapsedMs() / 1e3),
                String.format("%.1f", finished.megabytesPerSecond()));
        ClusterMetadata after = Changes.commit(
                membership.log(),
                replacing
                        ? new Transformation.FinishReplace(membership.selfId())
                        : new Transformation.FinishJoin(membership.selfId()),
                10);
        context.forgetCursors(); // the change is done: nothing resumes them
        status.accept(progress(kind(replacing), m, done, sources.size(), entries, bytes, started, "done"));
        log.info(
                "{}: node {} is NORMAL at epoch {}",
                replacing ? "replaced" : "joined",
                membership.selfId(),
                after.epoch());
    }

    /**
     * The keys this node takes over from {@code source}: from it alone, or, for a join whose source fails,
     * from their other old replicas.
     */
    private static StreamProgress fromSource(
            MoveContext context,
            ClusterMetadata m,
            Placement p,
            List<NodeId> sources,
            NodeId source,
            NodeId self,
            boolean replacing)
            throws IOException, InterruptedException, StreamFailedException {
        try {
            return context.stream(
                    new StreamPlan(m.epoch(), p.replicationFactor(), p.current(), p.next(), source, self, replacing));
        } catch (StreamFailedException e) {
            if (replacing) {
                throw e; // every other replica is a source already
            }
            log.warn(
                    "streaming from {} failed ({}); taking its keys from their other old replicas",
                    source,
                    e.getMessage());
            long entries = 0;
            long bytes = 0;
            for (NodeId other : sources) {
                if (!other.equals(source)) {
                    StreamProgress more = context.stream(
                            new StreamPlan(m.epoch(), p.replicationFactor(), p.current(), p.next(), other, self, true));
                    entries += more.entries();
                    bytes += more.bytes();
                }
            }
            return new StreamProgress(entries, bytes, 0, 0, 0, true);
        }
    }

    private static String kind(boolean replacing) {
        return replacing ? "replace" : "join";
    }

    private static MoveStatus progress(
            String kind,
            ClusterMetadata m,
            int done,
            int total,
            long entries,
            long bytes,
            long startedNanos,
            String phase) {
        return new MoveStatus(
                kind,
                phase,
                m.epoch(),
                done,
                total,
                entries,
                bytes,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos),
                "");
    }
}
