package io.ringbase.cluster.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * Random sequences of transformations, valid and not, keep the metadata's invariants: ids unique and never
 * reused, the epoch one more per applied change, a rejected change leaving everything unchanged, at most one
 * membership change in progress, enough NORMAL members for the replication factor, and every state
 * surviving the snapshot codec.
 */
class TransformationPropertiesTest {

    private static final int MAX_ID = 7; // ids 0..7: mostly existing members, some not

    @Property(tries = 300)
    void invariantsHoldAfterEveryStep(@ForAll("histories") List<Transformation> history)
            throws MetadataFormatException {
        ClusterMetadata m = ClusterMetadata.EMPTY;
        Map<Integer, String> everIssued = new HashMap<>(); // id -> URL it was first given to
        for (Transformation generated : history) {
            Transformation t = aimedAtTheChangeInProgress(generated, m);
            Outcome outcome = t.execute(m);
            Statistics.label("outcomes")
                    .collect(t.getClass().getSimpleName()
                            + (outcome instanceof Outcome.Applied ? " applied" : " rejected"));
            switch (outcome) {
                case Outcome.Rejected rejected -> {
                    assertThat(rejected.epoch()).isEqualTo(m.epoch());
                    assertThat(rejected.reason()).isNotBlank().doesNotContain("\n");
                    // pure: the same input gives the same answer, and m itself is untouched (immutable)
                    assertThat(t.execute(m)).isEqualTo(outcome);
                }
                case Outcome.Applied applied -> {
                    ClusterMetadata next = applied.metadata();
                    assertThat(next.epoch()).isEqualTo(m.epoch() + 1);
                    assertThat(next.nextNodeId()).isGreaterThanOrEqualTo(m.nextNodeId());
                    for (Member before : m.members().values()) {
                        Member after = next.members().get(before.id());
                        assertThat(after).as("members are never dropped").isNotNull();
                        assertThat(after.url()).isEqualTo(before.url());
                        if (before.state() == MemberState.LEFT) {
                            assertThat(after.state()).as("LEFT is final").isEqualTo(MemberState.LEFT);
                        }
                    }
                    for (Member member : next.members().values()) {
                        String first = everIssued.putIfAbsent(member.id(), member.url());
                        if (first != null) {
                            assertThat(member.url())
                                    .as("id %d never reused", member.id())
                                    .isEqualTo(first);
                        }
                        if (!m.members().containsKey(member.id())) {
                            assertThat(member.id())
                                    .as("a new id is above every id given before")
                                    .isGreaterThanOrEqualTo(m.nextNodeId());
                        }
                    }
                    m = next;
                }
            }
            checkInvariants(m);
        }
    }

    /**
     * Node id 0 in a finishing step stands for the node whose change is in progress (if any), so that
     * histories finish the changes they start often enough; other ids are taken as generated.
     */
    private static Transformation aimedAtTheChangeInProgress(Transformation t, ClusterMetadata m) {
        int inProgress = m.changeInProgress().map(Member::id).orElse(0);
        return switch (t) {
            case Transformation.FinishJoin f when f.nodeId() == 0 -> new Transformation.FinishJoin(inProgress);
            case Transformation.FinishDecommission f
            when f.nodeId() == 0 -> new Transformation.FinishDecommission(inProgress);
            case Transformation.FinishReplace f when f.nodeId() == 0 -> new Transformation.FinishReplace(inProgress);
            default -> t;
        };
    }

    private static void checkInvariants(ClusterMetadata m) throws MetadataFormatException {
        assertThat(m.members().values().stream().filter(x -> x.state().isTransient()))
                .as("at most one change in progress")
                .hasSizeLessThanOrEqualTo(1);
        if (m.isInitialized()) {
            assertThat(m.replicationFactor()).isBetween(1, m.normalCount());
        }
        var liveUrls = m.members().values().stream()
                .filter(x -> x.state().isLive())
                .map(Member::url)
                .toList();
        long distinctLive = liveUrls.stream().distinct().count();
        // a replacement may reuse the URL of the node it replaces while both are live
        long replacing = m.inState(MemberState.REPLACING).size();
        assertThat(distinctLive).isGreaterThanOrEqualTo(liveUrls.size() - replacing);
        for (Member r : m.inState(MemberState.REPLACING)) {
            assertThat(m.member(r.replaces())).get().extracting(Member::state).isEqualTo(MemberState.NORMAL);
        }
        assertThat(m.readPlacement())
                .allMatch(x -> x.state() == MemberState.NORMAL || x.state() == MemberState.LEAVING);
        assertThat(m.writePlacement()).containsAll(m.readPlacement());
        assertThat(MetadataCodec.decodeMetadata(MetadataCodec.encode(m))).isEqualTo(m);
    }

    @Provide
    Arbitrary<List<Transformation>> histories() {
        Arbitrary<Integer> ids = Arbitraries.integers().between(0, MAX_ID);
        Arbitrary<Integer> hosts = Arbitraries.integers().between(1, 6); // few, so addresses collide
        Arbitrary<Integer> factors = Arbitraries.integers().between(0, 5);
        Arbitrary<Transformation.Founder> founders =
                hosts.map(h -> new Transformation.Founder("http://10.0.0." + h + ":8080", "10.0.0." + h + ":9090"));
        Arbitrary<Transformation> initialize = Combinators.combine(
                        factors, founders.list().ofMinSize(0).ofMaxSize(5))
                .as((rf, f) -> new Transformation.Initialize(UUID.nameUUIDFromBytes(new byte[] {1}), rf, f));
        Arbitrary<Transformation> anyChange = Arbitraries.oneOf(
                initialize,
                hosts.map(h -> new Transformation.StartJoin("http://10.0.0." + h + ":8080", "10.0.0." + h + ":9090")),
                ids.map(Transformation.FinishJoin::new),
                ids.map(Transformation.StartDecommission::new),
                ids.map(Transformation.FinishDecommission::new),
                ids.map(Transformation.RemoveNode::new),
                Combinators.combine(ids, hosts)
                        .as((id, h) -> new Transformation.StartReplace(
                                id, "http://10.0.0." + h + ":8080", "10.0.0." + h + ":9090")),
                ids.map(Transformation.FinishReplace::new),
                factors.map(Transformation.SetReplicationFactor::new));
        // most histories start with a valid INITIALIZE, so that they get past "not initialized"
        Arbitrary<Transformation> start = Combinators.combine(
                        Arbitraries.integers().between(1, 3), hosts)
                .as((n, h) -> {
                    List<Transformation.Founder> f = new ArrayList<>();
                    for (int i = 0; i < n; i++) {
                        int host = 100 + h * 10 + i;
                        f.add(new Transformation.Founder(
                                "http://10.0.1." + host + ":8080", "10.0.1." + host + ":9090"));
                    }
                    return (Transformation) new Transformation.Initialize(UUID.nameUUIDFromBytes(new byte[] {2}), 1, f);
                });
        return Combinators.combine(start, anyChange.list().ofMinSize(0).ofMaxSize(60))
                .as((first, rest) -> {
                    List<Transformation> all = new ArrayList<>();
                    all.add(first);
                    all.addAll(rest);
                    return all;
                });
    }
}
