package io.ringbase.faults;

import static org.awaitility.Awaitility.await;

import io.ringbase.faults.cluster.NsCluster;
import io.ringbase.faults.cluster.NsNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.awaitility.core.ConditionTimeoutException;

/**
 * The tombstone purge of a {@link FaultRun.Tombstones#PURGED} run, between the first repair and the final
 * reads of deleted keys: every node is restarted (SIGTERM, then serve) with a short tombstone grace
 * ({@link #FLAGS}), flushed and major-compacted until the sampled acknowledged deletes have no tombstone
 * left on any node, and repaired again. With the tombstones gone, a replica that still holds a deleted
 * key's value (a delete that neither its hint nor the first repair delivered) is no longer outvoted: the
 * second repair copies the value back and the no-resurrection checker sees it. With the default grace
 * (10 days) no tombstone is ever dropped during a run, so a tombstone on one replica hides such a miss.
 *
 * <p>The grace is shortened only after the first repair: a delete must reach every replica (by hint or
 * repair) within the grace, and a run cannot promise that while faults last. The nodes ran the faults with
 * a 1 s hint window ({@link FaultRun.Tombstones#PURGED}'s flags), so that deletes a node missed while it
 * was down are mostly left to repair rather than to hints.
 */
final class PurgePhase {

    /** The serve flags of the restart: a tombstone grace of 2 s, above the 1 s hint window it must exceed. */
    static final List<String> FLAGS = List.of("--tombstone-grace", "2s", "--hint-window", "1s");
    /** Acknowledged deletes whose tombstones are looked for on every node (evenly spread over all of them). */
    static final int SAMPLE = 200;
    /** How long flushes and compactions may take to purge the sampled tombstones (ms). */
    static final long PURGE_TIMEOUT_MS = 30_000;

    /** How long stopping the nodes may take, beyond what {@link NsNode#stop} allows itself. */
    static final Duration STOP_TIMEOUT = Duration.ofSeconds(90);

    private PurgePhase() {}

    /**
     * Runs the phase.
     *
     * @param baseFlags   every node's serve flags besides {@link #FLAGS} (which replace the run's hint window)
     * @param deletedKeys the set keys whose delete was acknowledged
     */
    static void run(
            NsCluster cluster,
            ClusterAdmin admin,
            List<String> baseFlags,
            List<String> deletedKeys,
            List<Note> notes,
            Consumer<String> events)
            throws Exception {
        List<String> flags = new ArrayList<>(baseFlags);
        flags.addAll(FLAGS);
        List<Thread> stopping = new ArrayList<>();
        for (NsNode n : cluster.nodes()) { // together: the clients are stopped, and each stop takes a while
            n.setExtraFlags(flags);
            stopping.add(Thread.ofVirtual().start(() -> {
                try {
                    n.stop();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
        }
        for (Thread t : stopping) {
            if (!t.join(STOP_TIMEOUT)) { // NsNode.stop: 30 s for SIGTERM, then 30 s for SIGKILL
                throw new IllegalStateException("a node did not stop within " + STOP_TIMEOUT);
            }
        }
        events.accept("stopped every node (SIGTERM)");
        List<CompletableFuture<Void>> ready = new ArrayList<>();
        for (NsNode n : cluster.nodes()) {
            ready.add(n.start(0));
        }
        CompletableFuture.allOf(ready.toArray(CompletableFuture[]::new)).join(); // each times out in NsNode
        events.accept("restarted every node with " + String.join(" ", FLAGS));
        if (!admin.awaitHealthy(cluster.size(), 60_000)) {
            notes.add(Note.failure("after the restart with a short tombstone grace the cluster did not answer " + "ack="
                    + cluster.size() + " reads on every node within 60 s"));
            return;
        }
        List<String> sample = sample(deletedKeys, SAMPLE);
        if (sample.isEmpty()) {
            notes.add(Note.failure("no acknowledged delete to purge: the purge and the repair after it went untested"));
            return;
        }
        Counts[] last = {null};
        try {
            await().atMost(Duration.ofMillis(PURGE_TIMEOUT_MS))
                    .pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofSeconds(1))
                    .pollInSameThread()
                    .until(() -> {
                        boolean compacted = true;
                        for (int i = 0; i < cluster.size(); i++) {
                            if (!admin.flushAndCompact(i)) {
                                compacted = false; // noted; polling again would only repeat it
                            }
                        }
                        if (!compacted) {
                            return true;
                        }
                        last[0] = count(admin, cluster.size(), sample);
                        return last[0].tombstones == 0 && last[0].unknown == 0;
                    });
        } catch (ConditionTimeoutException e) {
            Counts c = last[0];
            notes.add(Note.failure("tombstones not purged within " + PURGE_TIMEOUT_MS / 1000 + " s of flushes and "
                    + "major compactions with a 2 s grace: "
                    + (c == null
                            ? "no count"
                            : c.tombstones + " of " + sample.size() + " sampled deleted keys still have one, "
                                    + c.unknown + " entry reads failed")));
        }
        events.accept("purge: " + last[0]);
        ClusterAdmin.RepairTotals after = admin.repairEveryNode("repair after purge");
        Counts c = last[0];
        if (c != null) {
            notes.add(Note.info("tombstones purged: " + c.gone + " of " + sample.size()
                    + " sampled acked deletes held by no node after flush+compact with a 2 s grace"
                    + (c.values > 0 ? ", " + c.values + " still had a value on some node" : "")
                    + "; repair after the purge moved " + (after.keysReceived() + after.keysSent()) + " keys"));
        }
    }

    /**
     * What the nodes hold for the sampled keys: keys held by no node, keys with a tombstone or a value on
     * some node, keys some node did not answer for.
     */
    record Counts(int gone, int tombstones, int values, int unknown) {}

    private static Counts count(ClusterAdmin admin, int nodes, List<String> keys) {
        int gone = 0;
        int tombstones = 0;
        int values = 0;
        int unknown = 0;
        for (String key : keys) {
            boolean tombstone = false;
            boolean value = false;
            boolean failed = false;
            for (int i = 0; i < nodes; i++) {
                switch (admin.held(i, key)) {
                    case NOTHING -> {}
                    case TOMBSTONE -> tombstone = true;
                    case VALUE -> value = true;
                    case UNKNOWN -> failed = true;
                }
            }
            gone += tombstone || value || failed ? 0 : 1;
            unknown += failed ? 1 : 0;
            tombstones += tombstone ? 1 : 0;
            values += value ? 1 : 0;
        }
        return new Counts(gone, tombstones, values, unknown);
    }

    /** Up to {@code max} of {@code keys}, evenly spread. */
    static List<String> sample(List<String> keys, int max) {
        if (keys.size() <= max) {
            return List.copyOf(keys);
        }
        List<String> out = new ArrayList<>(max);
        for (int i = 0; i < max; i++) {
            out.add(keys.get((int) ((long) i * keys.size() / max)));
        }
        return out;
    }
}
