package io.ringbase.cluster.replication;

import static io.ringbase.cluster.replication.CoordinatorTest.KEY;
import static io.ringbase.cluster.replication.CoordinatorTest.TOPOLOGY;
import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.cluster.NodeId;
import io.ringbase.kv.QuorumException;
import io.ringbase.storage.Entry;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * The one-round quorum write against a model of three replicas, randomized: writes one after another
 * through three coordinators whose clocks are skewed either way (some beyond the clocks' bound), while
 * writes through other coordinators (clocks ahead or behind) land on some replicas just before this
 * one's, and answers are lost before or after the replica applied the write. After every write it checks
 * what linearizability rests on (docs/design.md, "Quorum writes in one round trip"):
 *
 * <ol>
 *   <li>a write that succeeded is newer than every entry a quorum held when it began, and a quorum holds
 *       it or something newer when it returns;</li>
 *   <li>no write is ever the newest entry of a replica under two versions (it would take effect twice);</li>
 *   <li>a write that failed as "no replica took it" is the newest entry of no replica, and no hint of a
 *       refused attempt is ever handed over.</li>
 * </ol>
 */
class OneRoundWriteModelTest {

    /** What one replica does with one write it is sent. */
    enum Fate {
        /** Applies it if it is newer and answers. */
        ANSWER,
        /** A write through another coordinator lands first, then as {@link #ANSWER}. */
        OTHER_FIRST,
        /** Applies it if newer, then the answer is lost (a timeout). */
        APPLY_THEN_LOSE,
        /** The request is lost before it arrives (a timeout, nothing applied). */
        LOSE
    }

    /** The replicas, the other coordinators' writes, and what every replica ever held. */
    static final class Model {
        final long[] skewMs;
        final List<Integer> fates;
        int nextFate;
        long nowMs = 1_000_000;
        final List<HybridLogicalClock> otherClocks = new ArrayList<>();
        int otherWrites;
        /** Every version under which each value was ever a replica's newest entry. */
        final Map<String, Set<Long>> versionsHeld = new HashMap<>();

        Model(long[] skewMs, List<Integer> fates) {
            this.skewMs = skewMs;
            this.fates = fates;
            for (int i = 0; i < skewMs.length; i++) {
                int c = i;
                otherClocks.add(new HybridLogicalClock(() -> nowMs + skewMs[c], 10 + c, 3_000));
            }
        }

        Fate nextFate() {
            int f = fates.get(nextFate++ % fates.size());
            if (f < 55) {
                return Fate.ANSWER;
            }
            if (f < 80) {
                return Fate.OTHER_FIRST;
            }
            return f < 90 ? Fate.APPLY_THEN_LOSE : Fate.LOSE;
        }

        /** A write through another coordinator, with a unique value, under that coordinator's clock. */
        Entry otherWrite() {
            int n = otherWrites++;
            return value(otherClocks.get(n % otherClocks.size()).now(), "other-" + n);
        }

        void held(Entry e) {
            versionsHeld.computeIfAbsent(text(e), k -> new HashSet<>()).add(e.version());
        }
    }

    /** A replica of the model: a replica holds only its newest entry and takes a write only if newer. */
    static final class ModelReplica implements Replica {
        final NodeId node;
        final Model model;
        Entry stored;

        ModelReplica(NodeId node, Model model) {
            this.node = node;
            this.model = model;
        }

        @Override
        public NodeId node() {
            return node;
        }

        /** As {@link LocalReplica#applyChecked}: checks, then writes only a newer entry. */
        long apply(Entry e) {
            long result = Replica.writeResult(e, stored);
            if (result == e.version() && !e.equals(stored)) {
                stored = e;
                model.held(e);
            }
            return result;
        }

        @Override
        public CompletableFuture<Long> writeChecked(Entry entry) {
            return switch (model.nextFate()) {
                case ANSWER -> CompletableFuture.completedFuture(apply(entry));
                case OTHER_FIRST -> {
                    apply(model.otherWrite());
                    yield CompletableFuture.completedFuture(apply(entry));
                }
                case APPLY_THEN_LOSE -> {
                    apply(entry);
                    yield CompletableFuture.failedFuture(new ReplicaException.Timeout(node, 1000));
                }
                case LOSE -> CompletableFuture.failedFuture(new ReplicaException.Timeout(node, 1000));
            };
        }

        @Override
        public CompletableFuture<Void> write(Entry entry) {
            return writeChecked(entry).thenApply(v -> null);
        }

        @Override
        public CompletableFuture<Entry> read(byte[] key) {
            return CompletableFuture.completedFuture(stored);
        }

        @Override
        public CompletableFuture<EntryPage> scan(byte[] start, byte[] end, int maxBytes) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Void> probe() {
            return CompletableFuture.completedFuture(null);
        }
    }

    static Entry value(long version, String v) {
        return Entry.value(KEY, version, v.getBytes(StandardCharsets.UTF_8));
    }

    static String text(Entry e) {
        return e.value() == null ? "<tombstone>" : new String(e.value(), StandardCharsets.UTF_8);
    }

    @Property(tries = 300)
    void writesStayOrderedAndTakeEffectOnce(
            @ForAll @Size(3) List<@IntRange(min = -700, max = 700) Integer> coordinatorSkewMs,
            @ForAll @Size(3) List<@IntRange(min = -700, max = 1_500) Integer> otherSkewMs,
            @ForAll @Size(min = 1, max = 60) List<@IntRange(min = 0, max = 99) Integer> fates,
            @ForAll @Size(min = 5, max = 40) List<@IntRange(min = 0, max = 2) Integer> coordinators,
            @ForAll @IntRange(min = 0, max = 30) int stepMs)
            throws Exception {
        Model model =
                new Model(otherSkewMs.stream().mapToLong(Integer::longValue).toArray(), fates);
        List<ModelReplica> replicas = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            replicas.add(new ModelReplica(TOPOLOGY.node(i), model));
        }
        List<HybridLogicalClock> clocks = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            long skew = coordinatorSkewMs.get(i);
            clocks.add(new HybridLogicalClock(() -> model.nowMs + skew, i, HybridLogicalClock.DEFAULT_MAX_OFFSET_MS));
        }
        Map<String, Entry> hinted = new HashMap<>();
        HintSink hints = (target, entry) -> {
            Entry before = hinted.put(text(entry), entry);
            assertThat(before == null || before.equals(entry))
                    .as("hints of %s under two versions: %s and %s", text(entry), before, entry)
                    .isTrue();
            return CompletableFuture.completedFuture(null);
        };
        int k = 0;
        for (int c : coordinators) {
            model.nowMs += stepMs;
            Coordinator coordinator = new Coordinator(
                    TOPOLOGY,
                    List.copyOf(replicas),
                    new Liveness(3),
                    hints,
                    clocks.get(c),
                    Runnable::run,
                    SpeculativeRetry.ALWAYS,
                    null,
                    io.ringbase.clock.TimeSource.SYSTEM,
                    WriteProtocol.ONE_ROUND);
            Entry completedBefore = newestOnAQuorum(replicas);
            String mine = "write-" + k++;
            Throwable failure = null;
            try {
                coordinator.write(value(clocks.get(c).now(), mine), 2, 3).get(5, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                failure = e.getCause();
                assertThat(failure).isInstanceOf(QuorumException.class);
            }
            for (Map.Entry<String, Set<Long>> held : model.versionsHeld.entrySet()) {
                assertThat(held.getValue())
                        .as("versions %s was ever the newest entry under", held.getKey())
                        .hasSizeLessThanOrEqualTo(1);
            }
            Set<Long> mineHeld = model.versionsHeld.getOrDefault(mine, Set.of());
            if (hinted.containsKey(mine)) {
                assertThat(mineHeld.isEmpty()
                                || mineHeld.contains(hinted.get(mine).version()))
                        .as("a hint of %s carries the version it was taken under", mine)
                        .isTrue();
            }
            if (failure == null) {
                assertThat(mineHeld)
                        .as("%s succeeded, so some replica took it", mine)
                        .hasSize(1);
                long version = mineHeld.iterator().next();
                if (completedBefore != null) {
                    assertThat(Entry.compareNewness(value(version, mine), completedBefore))
                            .as(
                                    "%s@%d is newer than %s, which a quorum held before it began",
                                    mine, version, completedBefore)
                            .isPositive();
                }
                long holding = replicas.stream()
                        .filter(r -> r.stored != null && r.stored.version() >= version)
                        .count();
                assertThat(holding).as("replicas holding %s or newer", mine).isGreaterThanOrEqualTo(2);
            } else if (failure.getMessage().contains("no replica took the write")) {
                assertThat(mineHeld)
                        .as("%s failed as taken by no replica", mine)
                        .isEmpty();
                assertThat(hinted).doesNotContainKey(mine);
            }
        }
    }

    /** The newest entry held by at least two of the three replicas (a quorum), or null. */
    static Entry newestOnAQuorum(List<ModelReplica> replicas) {
        Entry best = null;
        for (int i = 0; i < replicas.size(); i++) {
            for (int j = i + 1; j < replicas.size(); j++) {
                Entry a = replicas.get(i).stored;
                Entry b = replicas.get(j).stored;
                if (a == null || b == null) {
                    continue;
                }
                Entry both = Entry.compareNewness(a, b) <= 0 ? a : b; // both hold this or newer
                best = best == null || Entry.compareNewness(both, best) > 0 ? both : best;
            }
        }
        return best;
    }
}
