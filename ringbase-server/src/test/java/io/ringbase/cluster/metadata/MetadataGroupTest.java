package io.ringbase.cluster.metadata;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.ringbase.testing.IntegrationTest;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Three metadata servers in this process on loopback ports: they agree on every epoch, keep committing with
 * one of them down, and the one restarted from its directory catches up; a lone survivor cannot commit and
 * says so within its timeout.
 */
@IntegrationTest
@Timeout(180)
class MetadataGroupTest {

    private static final Logger log = LoggerFactory.getLogger(MetadataGroupTest.class);
    private static final UUID CLUSTER = UUID.fromString("aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee");
    private static final long TIMEOUT_MS = 4_000;
    private static final Duration CONVERGE = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    private final Map<Integer, String> peers = new TreeMap<>();
    private final Map<Integer, MetadataService> running = new TreeMap<>();
    private long logSegmentBytes = MetadataOptions.DEFAULT_LOG_SEGMENT_BYTES;

    @AfterEach
    void closeAll() throws IOException {
        for (MetadataService service : running.values()) {
            service.close();
        }
    }

    @Test
    void threeServersAgreeKeepCommittingWithOneDownAndTheRestartedOneCatchesUp() throws Exception {
        long t0 = System.nanoTime();
        startGroup(3);
        long listening = System.nanoTime();
        List<Long> epochsSeen = new CopyOnWriteArrayList<>();
        running.get(1).addListener(m -> epochsSeen.add(m.epoch()));

        ClusterMetadata initialized = submit(2, new Transformation.Initialize(CLUSTER, 2, founders(3)));
        long firstCommit = System.nanoTime();
        log.info(
                "3-server metadata group: listening after {} ms, first change committed after {} ms",
                (listening - t0) / 1_000_000,
                (firstCommit - t0) / 1_000_000);
        assertThat(initialized.epoch()).isEqualTo(1);
        assertThat(initialized.normalCount()).isEqualTo(3);

        ClusterMetadata joining = submit(1, new Transformation.StartJoin("http://127.0.0.1:18004", "127.0.0.1:19004"));
        assertThat(joining.member(4)).get().extracting(Member::state).isEqualTo(MemberState.JOINING);
        submit(3, new Transformation.FinishJoin(4));
        submit(1, new Transformation.StartDecommission(2));
        ClusterMetadata afterDecommission = submit(2, new Transformation.FinishDecommission(2));
        assertThat(afterDecommission.epoch()).isEqualTo(5);
        assertThat(afterDecommission.readPlacement()).extracting(Member::id).containsExactly(1, 3, 4);

        // a rejected change: a one-line reason, and the epoch stays where it was
        assertThatThrownBy(() -> submit(1, new Transformation.FinishJoin(4)))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(RejectedChangeException.class)
                .hasMessage("node 4 is NORMAL, not JOINING");

        awaitAllAt(afterDecommission);
        await().atMost(CONVERGE).untilAsserted(() -> assertThat(epochsSeen).endsWith(5L));
        assertThat(epochsSeen).isSorted().doesNotHaveDuplicates();
        assertThat(running.get(3).fetchLatest().get(TIMEOUT_MS * 2, MILLISECONDS))
                .isEqualTo(afterDecommission);

        // one server down: the other two still commit
        running.remove(3).close();
        submit(1, new Transformation.SetReplicationFactor(3));
        ClusterMetadata latest = submit(2, new Transformation.StartJoin("http://127.0.0.1:18005", "127.0.0.1:19005"));
        assertThat(latest.epoch()).isEqualTo(7);
        awaitAllAt(latest);
        assertThat(snapshots(3)).as("a snapshot taken on close").isNotEmpty();

        // restarted from its directory, it catches up on what it missed
        MetadataService restarted = MetadataService.start(options(3));
        running.put(3, restarted);
        assertThat(restarted.current().epoch())
                .as("recovered from its own storage")
                .isGreaterThanOrEqualTo(5);
        assertThat(restarted.awaitEpoch(7).get(TIMEOUT_MS * 2, MILLISECONDS)).isEqualTo(latest);
        awaitAllAt(latest);
        ClusterMetadata finished = submit(3, new Transformation.FinishJoin(5));
        awaitAllAt(finished);
    }

    @Test
    void aServerBehindTheStartOfTheLeadersLogIsSentASnapshot() throws Exception {
        logSegmentBytes = MetadataOptions.MIN_LOG_SEGMENT_BYTES;
        startGroup(3);
        awaitAllAt(submit(1, new Transformation.Initialize(CLUSTER, 2, founders(3))));
        running.remove(3).close();

        // about 1 KiB per START_JOIN: 2 servers write and snapshot enough to close and delete segments
        String labels = ("a".repeat(60) + ".").repeat(15);
        ClusterMetadata latest = null;
        for (int i = 0; i < 20; i++) {
            ClusterMetadata joining = submit(
                    1, new Transformation.StartJoin("http://" + labels + "n" + i + ":8080", "10.9.0." + i + ":9000"));
            int id = joining.changeInProgress().orElseThrow().id();
            latest = submit(2, new Transformation.RemoveNode(id));
        }
        awaitAllAt(latest);
        for (int id = 1; id <= 2; id++) {
            assertThat(logSegments(id))
                    .as("server %d deleted the segments its snapshots cover", id)
                    .noneMatch(name -> name.startsWith("log_0-") || name.equals("log_inprogress_0"));
        }

        // its own log ends where the others' now begin: only a snapshot can bring it up to date
        MetadataService behind = MetadataService.start(options(3));
        running.put(3, behind);
        awaitAllAt(latest);
        assertThat(behind.current().epoch()).isEqualTo(41);
    }

    @Test
    void aLoneSurvivorCannotCommitAndFailsWithinItsTimeout() throws Exception {
        startGroup(3);
        ClusterMetadata initialized = submit(1, new Transformation.Initialize(CLUSTER, 2, founders(3)));
        awaitAllAt(initialized);
        running.remove(2).close();
        running.remove(3).close();

        MetadataService survivor = running.get(1);
        long start = System.nanoTime();
        assertThatThrownBy(() -> survivor.submit(new Transformation.SetReplicationFactor(1))
                        .get(TIMEOUT_MS * 3, MILLISECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(MetadataUnavailableException.class)
                .hasMessageContaining("no answer from a metadata quorum in time");
        long elapsedMs = (System.nanoTime() - start) / 1_000_000;
        assertThat(elapsedMs).isLessThan(TIMEOUT_MS + 2_000);
        // it still serves with the last metadata it knows
        assertThat(survivor.current()).isEqualTo(initialized);
    }

    @Test
    void aFailedStartReleasesWhatItOpenedAndASingleServerGroupCommitsAlone() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            peers.put(1, "127.0.0.1:" + taken.getLocalPort());
            assertThatThrownBy(() -> MetadataService.start(options(1)))
                    .isInstanceOf(IOException.class)
                    .hasMessageStartingWith("metadata server 1 cannot listen on " + peers.get(1) + ": ");
        }
        // the directory lock and every thread of the failed start are released: the same directory starts
        MetadataService alone = MetadataService.start(options(1));
        running.put(1, alone);
        ClusterMetadata m = alone.submit(new Transformation.Initialize(CLUSTER, 1, founders(1)))
                .get(TIMEOUT_MS * 3, MILLISECONDS);
        assertThat(m.epoch()).isEqualTo(1);
        assertThat(alone.current()).isEqualTo(m);
    }

    private void startGroup(int n) throws IOException {
        for (int id = 1; id <= n; id++) {
            peers.put(id, "127.0.0.1:" + freePort());
        }
        for (int id = 1; id <= n; id++) {
            running.put(id, MetadataService.start(options(id)));
        }
    }

    private MetadataOptions options(int id) {
        return MetadataOptions.of(id, peers, dir.resolve("node-" + id))
                .withRequestTimeoutMs(TIMEOUT_MS)
                .withSnapshotEveryEntries(3)
                .withLogSegmentBytes(logSegmentBytes);
    }

    private List<String> logSegments(int id) throws IOException {
        Path current = dir.resolve("node-" + id)
                .resolve(MetadataService.GROUP_ID.toString())
                .resolve("current");
        try (Stream<Path> files = Files.list(current)) {
            return files.map(f -> f.getFileName().toString())
                    .filter(name -> name.startsWith("log_"))
                    .toList();
        }
    }

    private static List<Transformation.Founder> founders(int n) {
        List<Transformation.Founder> founders = new ArrayList<>();
        for (int id = 1; id <= n; id++) {
            founders.add(new Transformation.Founder("http://127.0.0.1:1800" + id, "127.0.0.1:1900" + id));
        }
        return founders;
    }

    /** Submits through server {@code via}; the first submit also waits out the first election. */
    private ClusterMetadata submit(int via, Transformation t) throws Exception {
        return running.get(via).submit(t).get(TIMEOUT_MS * 3, MILLISECONDS);
    }

    private void awaitAllAt(ClusterMetadata expected) {
        await().atMost(CONVERGE).untilAsserted(() -> {
            for (var service : running.entrySet()) {
                assertThat(service.getValue().current())
                        .as("server %d", service.getKey())
                        .isEqualTo(expected);
            }
        });
    }

    private List<Path> snapshots(int id) throws IOException {
        Path sm = dir.resolve("node-" + id)
                .resolve(MetadataService.GROUP_ID.toString())
                .resolve("sm");
        try (Stream<Path> files = Files.list(sm)) {
            return files.filter(f -> f.getFileName().toString().matches("snapshot\\.\\d+_\\d+"))
                    .toList();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return socket.getLocalPort();
        }
    }
}
