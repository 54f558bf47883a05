package io.ringbase.cluster.elastic;

import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.metadata.ClusterMetadata;
import io.ringbase.cluster.metadata.MemberState;
import io.ringbase.cluster.metadata.Transformation;
import io.ringbase.cluster.paxos.PaxosProposer;
import io.ringbase.cluster.replication.EntryPage;
import io.ringbase.cluster.replication.Replica;
import io.ringbase.cluster.ring.Placement;
import io.ringbase.cluster.streaming.StreamPlan;
import io.ringbase.cluster.streaming.StreamSource;
import io.ringbase.storage.Entry;
import io.ringbase.storage.EntryFormat;
import io.ringbase.throttle.ByteRateLimiter;
import io.ringbase.throttle.Sleeper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A leaving node's decommission (Cassandra's {@code nodetool decommission}, in CEP-21's steps): it commits
 * StartDecommission (LEAVING: it still serves reads, and writes also reach the keys' next owners), waits
 * until every node has that epoch, sends each key it holds to the node that takes it over (the pages of
 * {@link StreamSource} for a plan from itself to each node of the next ring, written as replica writes,
 * which keep the newer version; rate-limited as streams are), then commits FinishDecommission: LEFT, out of every placement.
 */
final class DecommissionDriver {

    private static final Logger log = LoggerFactory.getLogger(DecommissionDriver.class);

    /** Replica writes in flight at once per target. */
    static final int WRITES_IN_FLIGHT = 256;

    /** Encoded bytes per page read from the engine. */
    static final int PAGE_BYTES = 1 << 20;

    /** Attempts of one page's writes before the decommission fails. */
    static final int PAGE_ATTEMPTS = 5;

    private DecommissionDriver() {}

    static void run(ElasticMembership membership, MoveContext context, Consumer<MoveStatus> status) {
        try {
            attempt(membership, context, status);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException | RuntimeException e) {
            log.error(
                    "decommission failed: {}; this node stays LEAVING: run the decommission again", e.getMessage(), e);
            status.accept(new MoveStatus(
                    "decommission", "failed", membership.epoch(), 0, 0, 0, 0, 0, String.valueOf(e.getMessage())));
        }
    }

    private static void attempt(ElasticMembership membership, MoveContext context, Consumer<MoveStatus> status)
            throws IOException, InterruptedException {
        NodeId self = membership.self();
        ClusterMetadata m = membership.metadata();
        if (membership.selfState() == MemberState.NORMAL) {
            m = Changes.commit(membership.log(), new Transformation.StartDecommission(membership.selfId()), 10);
            log.info("decommission started at epoch {}: this node is LEAVING", m.epoch());
        }
        status.accept(new MoveStatus("decommission", "waiting", m.epoch(), 0, 0, 0, 0, 0, ""));
        // as a join's "mid" step: no compare-and-set round of the epoch before START_DECOMMISSION may still run
        // when FINISH_DECOMMISSION makes the next owners natural replicas (design.md, "Compare-and-set")
        Changes.awaitEveryoneAt(m, self, context, PaxosProposer.longestMs(context.replicaTimeoutMs()));
        Placement p = Placements.of(m, self);
        StreamSource local = new StreamSource(context.engine(), self);
        ByteRateLimiter limiter =
                new ByteRateLimiter(context.streaming().bytesPerSecond(), System::nanoTime, Sleeper.SYSTEM);
        List<NodeId> targets = p.next().nodes();
        long started = System.nanoTime();
        long entries = 0;
        long bytes = 0;
        int done = 0;
        for (NodeId target : targets) {
            StreamPlan plan =
                    new StreamPlan(m.epoch(), p.replicationFactor(), p.current(), p.next(), self, target, false);
            Replica replica = context.replicas().apply(target);
            byte[] start = new byte[0];
            while (true) {
                EntryPage page = local.entries(plan, start, PAGE_BYTES);
                long pageBytes = 0;
                for (Entry e : page.entries()) {
                    pageBytes += EntryFormat.encodedSize(e);
                }
                limiter.acquire(pageBytes);
                send(replica, page.entries());
                entries += page.entries().size();
                bytes += pageBytes;
                status.accept(new MoveStatus(
                        "decommission",
                        "streaming",
                        m.epoch(),
                        done,
                        targets.size(),
                        entries,
                        bytes,
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
                        ""));
                if (!page.hasMore()) {
                    break;
                }
                start = page.next();
            }
            done++;
        }
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        log.info(
                "decommission streaming done: {} entries, {} MB to {} nodes in {} ms",
                entries,
                String.format("%.1f", bytes / 1e6),
                targets.size(),
                ms);
        status.accept(
                new MoveStatus("decommission", "finishing", m.epoch(), done, targets.size(), entries, bytes, ms, ""));
        ClusterMetadata after =
                Changes.commit(membership.log(), new Transformation.FinishDecommission(membership.selfId()), 10);
        status.accept(new MoveStatus("decommission", "done", m.epoch(), done, targets.size(), entries, bytes, ms, ""));
        log.info(
                "decommissioned: node {} LEFT at epoch {}; it holds no keys of the cluster now and may be stopped",
                membership.selfId(),
                after.epoch());
    }

    /** Writes {@code entries} to {@code replica}, at most {@link #WRITES_IN_FLIGHT} at once, retrying failures. */
    private static void send(Replica replica, List<Entry> entries) throws IOException, InterruptedException {
        List<Entry> left = entries;
        for (int attempt = 1; !left.isEmpty(); attempt++) {
            Semaphore inFlight = new Semaphore(WRITES_IN_FLIGHT);
            List<CompletableFuture<Void>> writes = new ArrayList<>(left.size());
            for (Entry e : left) {
                inFlight.acquire();
                CompletableFuture<Void> w = replica.write(e);
                var _ = w.whenComplete((v, failure) -> inFlight.release());
                writes.add(w);
            }
            List<Entry> failed = new ArrayList<>();
            Throwable cause = null;
            for (int i = 0; i < writes.size(); i++) {
                try {
                    writes.get(i).get(30, TimeUnit.SECONDS);
                } catch (ExecutionException | TimeoutException e) {
                    failed.add(left.get(i));
                    cause = e;
                }
            }
            if (!failed.isEmpty() && attempt >= PAGE_ATTEMPTS) {
                throw new IOException(
                        failed.size() + " writes to " + replica.node() + " failed " + attempt + " times; last: "
                                + cause,
                        cause);
            }
            if (!failed.isEmpty()) {
                TimeUnit.MILLISECONDS.sleep(200L * attempt);
            }
            left = failed;
        }
    }
}
