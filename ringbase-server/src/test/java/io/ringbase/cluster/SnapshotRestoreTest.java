package io.ringbase.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.cluster.membership.NodeState;
import io.ringbase.storage.Entry;
import io.ringbase.testing.IntegrationTest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Backup and restore as docs/operations.md describes them: {@code POST /v0/admin/snapshot}, then
 * stop the node, replace its data directory with a copy of the snapshot and start it; in a cluster it then
 * streams what it missed back from its peers by itself.
 */
@IntegrationTest
class SnapshotRestoreTest {

    @TempDir
    Path tmp;

    /** The restore procedure of docs/operations.md: the data directory becomes a copy of the snapshot. */
    static void restore(Path dataDir, String snapshot) throws IOException {
        Path saved = dataDir.resolveSibling(dataDir.getFileName() + ".before-restore");
        Files.move(dataDir, saved);
        Path from = saved.resolve("snapshots").resolve(snapshot);
        Files.createDirectories(dataDir);
        try (Stream<Path> files = Files.list(from)) {
            for (Path f : files.toList()) {
                Files.copy(f, dataDir.resolve(f.getFileName()));
            }
        }
        try (Stream<Path> s = Files.walk(saved)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    @Test
    void aSnapshotHoldsTheLiveTablesAndAManifestNamingExactlyThem() throws Exception {
        try (LocalCluster c = new LocalCluster(tmp, 1)) {
            for (int i = 0; i < 100; i++) {
                assertThat(c.put(0, "k" + i, "v" + i).status()).isEqualTo(201);
            }
            c.node(0).engine().flush();
            for (int i = 100; i < 150; i++) {
                assertThat(c.put(0, "k" + i, "v" + i).status()).isEqualTo(201); // in the memtable: the snapshot flushes
            }
            LocalCluster.Reply r = c.send(0, "POST", "/v0/admin/snapshot?name=s1", null);
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.body()).contains("\"name\":\"s1\"").contains("\"sstables\":2");
            Path snap = c.dataDir(0).resolve("snapshots").resolve("s1");
            try (Stream<Path> files = Files.list(snap)) {
                assertThat(files.map(p -> p.getFileName().toString()).sorted().toList())
                        .hasSize(3)
                        .contains("MANIFEST")
                        .allMatch(n -> n.equals("MANIFEST") || n.matches("sst-\\d{20}\\.sst"));
            }
            // hard links: the same files as the live directory's
            try (Stream<Path> files = Files.list(snap)) {
                for (Path f : files.filter(p -> p.toString().endsWith(".sst")).toList()) {
                    assertThat(Files.isSameFile(f, c.dataDir(0).resolve(f.getFileName())))
                            .isTrue();
                }
            }
            assertThat(c.send(0, "POST", "/v0/admin/snapshot?name=s1", null).status())
                    .isEqualTo(400);
            assertThat(c.send(0, "POST", "/v0/admin/snapshot?name=..", null).status())
                    .isEqualTo(400);
            assertThat(c.send(0, "POST", "/v0/admin/snapshot", null).status()).isEqualTo(400);
            assertThat(c.send(0, "GET", "/v0/admin/snapshot?name=x", null).status())
                    .isEqualTo(405);
        }
    }

    @Test
    void aRestoredSingleNodeServesTheDataAsOfTheSnapshot() throws Exception {
        try (LocalCluster c = new LocalCluster(tmp, 1)) {
            for (int i = 0; i < 50; i++) {
                c.put(0, "k" + i, "old" + i);
            }
            assertThat(c.send(0, "POST", "/v0/admin/snapshot?name=backup", null).status())
                    .isEqualTo(200);
            for (int i = 0; i < 10; i++) {
                c.put(0, "k" + i, "new" + i);
                c.delete(0, "k" + (10 + i));
            }
            c.put(0, "after", "x");
            c.stop(0);
            restore(c.dataDir(0), "backup");
            c.start(0);
            for (int i = 0; i < 50; i++) {
                LocalCluster.Reply r = c.get(0, "k" + i);
                assertThat(r.status()).as("k%d", i).isEqualTo(200);
                assertThat(r.body()).isEqualTo("old" + i);
            }
            assertThat(c.get(0, "after").status()).isEqualTo(404);
        }
    }

    @Test
    void aNodeRestoredFromASnapshotCatchesUpByItself() throws Exception {
        try (LocalCluster c = new LocalCluster(tmp, 3)) {
            c.awaitAllUp(Duration.ofSeconds(15));
            for (int i = 0; i < 50; i++) {
                assertThat(c.put(0, "k" + i, "old" + i).status()).isEqualTo(201);
            }
            assertThat(c.send(2, "POST", "/v0/admin/snapshot?name=nightly", null)
                            .status())
                    .isEqualTo(200);
            for (int i = 0; i < 10; i++) {
                assertThat(c.put(0, "k" + i, "new" + i, "&ack=3").status()).isEqualTo(201);
                assertThat(c.delete(0, "k" + (10 + i), "&ack=3").status()).isEqualTo(202);
                assertThat(c.put(0, "added" + i, "x", "&ack=3").status()).isEqualTo(201);
            }
            c.stop(2);
            restore(c.dataDir(2), "nightly");
            c.start(2);
            // its peers remember another incarnation of node 2 (the restored directory has none of its own):
            // it is a replacement, and streams what it missed back before it answers reads
            LocalCluster.await(
                    Duration.ofSeconds(60),
                    "node 2 to stream back what it missed",
                    () -> c.node(2).membership().orElseThrow().state() == NodeState.NORMAL
                            && c.send(2, "GET", "/v0/admin/repair", null).body().contains("\"outcome\":\"ok\""));
            for (int i = 0; i < 10; i++) {
                assertThat(value(c.stored(2, "k" + i))).isEqualTo("new" + i);
                assertThat(c.stored(2, "k" + (10 + i)).isTombstone()).isTrue();
                assertThat(value(c.stored(2, "added" + i))).isEqualTo("x");
            }
            for (int i = 20; i < 50; i++) {
                assertThat(value(c.stored(2, "k" + i))).isEqualTo("old" + i);
            }
        }
    }

    private static String value(Entry e) {
        assertThat(e).isNotNull();
        return new String(e.value(), StandardCharsets.UTF_8);
    }
}
