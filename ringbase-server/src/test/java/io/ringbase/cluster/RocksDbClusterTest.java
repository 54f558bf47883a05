package io.ringbase.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.cluster.membership.NodeState;
import io.ringbase.storage.EngineKind;
import io.ringbase.storage.Entry;
import io.ringbase.storage.rocksdb.RocksDbEngine;
import io.ringbase.testing.IntegrationTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Black-box: a cluster whose nodes run {@code --engine rocksdb}, or mix both engines, over HTTP. */
@IntegrationTest
class RocksDbClusterTest {

    @TempDir
    Path tmp;

    @Test
    void aRocksdbClusterStoresReadsDeletesScansAndRestarts() throws Exception {
        try (LocalCluster c = new LocalCluster(tmp, 3, conf -> conf.withEngine(EngineKind.ROCKSDB))) {
            assertThat(c.node(0).engine()).isInstanceOf(RocksDbEngine.class);
            assertThat(Files.readString(c.dataDir(1).resolve(EngineKind.MARKER)))
                    .isEqualTo("rocksdb\n");
            for (int i = 0; i < 20; i++) {
                assertThat(c.put(i % 3, "key" + i, "v" + i).status()).isEqualTo(201);
            }
            assertThat(c.get(2, "key7").body()).isEqualTo("v7");
            assertThat(c.delete(1, "key7").status()).isEqualTo(202);
            assertThat(c.get(0, "key7").status()).isEqualTo(404);
            LocalCluster.Reply scan = c.send(0, "GET", "/v0/entities?start=key1&end=key2", null);
            assertThat(scan.status()).isEqualTo(200);
            assertThat(scan.body()).contains("key1\nv1").contains("key19\nv19").doesNotContain("key2\n");
            c.stop(2);
            c.start(2);
            assertThat(c.get(2, "key3", "&ack=1&from=1").body()).isEqualTo("v3");
            assertThat(c.stored(2, "key7").isTombstone()).isTrue();
        }
    }

    @Test
    void repairBetweenEnginesBringsAWipedRocksdbNodeBackAndThenFindsTheirMerkleTreesEqual() throws Exception {
        try (LocalCluster c = new LocalCluster(
                tmp, 3, conf -> conf.topology().self().index() == 2 ? conf.withEngine(EngineKind.ROCKSDB) : conf)) {
            for (int i = 0; i < 300; i++) {
                assertThat(c.put(i % 3, "key" + i, "value" + i).status()).isEqualTo(201);
            }
            for (int i = 0; i < 300; i += 10) {
                assertThat(c.delete(0, "key" + i).status()).isEqualTo(202);
            }
            assertThat(c.put(0, "ttl", "t", "&ttl=3600").status()).isEqualTo(201);
            c.stop(2);
            c.wipe(2);
            c.start(2);
            assertThat(c.node(2).engine()).isInstanceOf(RocksDbEngine.class);
            // the wiped node streams its data back by itself (a replacement) before it answers reads
            LocalCluster.await(
                    Duration.ofSeconds(60),
                    "the wiped node to stream its data back",
                    () -> c.node(2).membership().orElseThrow().state() == NodeState.NORMAL);
            assertThat(c.send(2, "GET", "/v0/admin/repair", null).body()).contains("\"outcome\":\"ok\"");
            for (int i = 0; i < 300; i++) {
                Entry want = c.stored(0, "key" + i);
                Entry got = c.stored(2, "key" + i);
                assertThat(got).as("key%d on the repaired node", i).isEqualTo(want);
                assertThat(got.isTombstone()).isEqualTo(i % 10 == 0);
            }
            assertThat(c.stored(2, "ttl")).isEqualTo(c.stored(0, "ttl"));
            // a second run finds the ranges' Merkle trees equal on both engines: nothing to stream
            repair(c);
            assertThat(c.send(2, "GET", "/v0/admin/repair", null).body())
                    .contains("\"keysReceived\":0")
                    .contains("\"keysSent\":0");
        }
    }

    private static void repair(LocalCluster c) {
        assertThat(c.send(2, "POST", "/v0/admin/repair", null).status()).isEqualTo(202);
        LocalCluster.await(
                Duration.ofSeconds(60),
                "repair to finish",
                () -> c.send(2, "GET", "/v0/admin/repair", null).body().contains("\"state\":\"idle\""));
    }
}
