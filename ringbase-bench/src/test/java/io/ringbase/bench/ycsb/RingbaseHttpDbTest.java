package io.ringbase.bench.ycsb;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.api.HttpApi;
import io.ringbase.api.HttpServerConfig;
import io.ringbase.api.RingbaseHttpServer;
import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.clock.TimeSource;
import io.ringbase.node.NodeRoutes;
import io.ringbase.storage.lsm.LsmEngine;
import io.ringbase.storage.lsm.LsmOptions;
import io.ringbase.testing.IntegrationTest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import site.ycsb.ByteIterator;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;

/** The binding against a real node in this JVM, over loopback HTTP. */
@IntegrationTest
class RingbaseHttpDbTest {

    @TempDir
    Path dataDir;

    LsmEngine engine;
    RingbaseHttpServer server;
    RingbaseHttpDb db;

    @BeforeEach
    void start() throws Exception {
        engine = LsmEngine.open(LsmOptions.defaults(dataDir));
        HttpServerConfig config = HttpServerConfig.defaults(0).withHost("127.0.0.1");
        HttpApi api = NodeRoutes.standalone(engine, new HybridLogicalClock(), TimeSource.SYSTEM, config.maxBodyBytes());
        server = new RingbaseHttpServer(config, api, api.newRequestMetrics(), false);
        int port = server.start();
        db = new RingbaseHttpDb();
        Properties p = new Properties();
        p.setProperty("ringbase.urls", "http://127.0.0.1:" + port);
        db.setProperties(p);
        db.init();
    }

    @AfterEach
    void stop() throws Exception {
        db.cleanup();
        server.close();
        engine.close();
    }

    private static Map<String, ByteIterator> fields(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return StringByteIterator.getByteIteratorMap(m);
    }

    private static Map<String, String> strings(Map<String, ByteIterator> m) {
        Map<String, String> out = new HashMap<>();
        m.forEach((k, v) -> out.put(k, new String(v.toArray(), StandardCharsets.UTF_8)));
        return out;
    }

    @Test
    void insertThenReadReturnsTheFields() {
        assertThat(db.insert("usertable", "user1", fields("field0", "a", "field1", "b=")))
                .isEqualTo(Status.OK);
        Map<String, ByteIterator> got = new HashMap<>();
        assertThat(db.read("usertable", "user1", null, got)).isEqualTo(Status.OK);
        assertThat(strings(got)).isEqualTo(Map.of("field0", "a", "field1", "b="));
        Map<String, ByteIterator> one = new HashMap<>();
        assertThat(db.read("usertable", "user1", Set.of("field1"), one)).isEqualTo(Status.OK);
        assertThat(strings(one)).isEqualTo(Map.of("field1", "b="));
    }

    @Test
    void readOfAMissingKeyIsNotFound() {
        assertThat(db.read("usertable", "nobody", null, new HashMap<>())).isEqualTo(Status.NOT_FOUND);
    }

    @Test
    void updateMergesIntoTheStoredRecord() {
        db.insert("usertable", "user2", fields("field0", "a", "field1", "b"));
        assertThat(db.update("usertable", "user2", fields("field1", "B", "field2", "c")))
                .isEqualTo(Status.OK);
        Map<String, ByteIterator> got = new HashMap<>();
        db.read("usertable", "user2", null, got);
        assertThat(strings(got)).isEqualTo(Map.of("field0", "a", "field1", "B", "field2", "c"));
    }

    @Test
    @SuppressWarnings("JdkObsolete") // YCSB's DB.scan takes a Vector
    void scanReadsRecordsInKeyOrderWithinTheTable() {
        for (int i = 0; i < 5; i++) {
            db.insert("usertable", "user" + i, fields("field0", "v" + i));
        }
        db.insert("othertable", "user9", fields("field0", "other"));
        Vector<HashMap<String, ByteIterator>> rows = new Vector<>();
        assertThat(db.scan("usertable", "user1", 3, null, rows)).isEqualTo(Status.OK);
        assertThat(rows).extracting(r -> strings(r).get("field0")).containsExactly("v1", "v2", "v3");
        rows.clear();
        assertThat(db.scan("usertable", "user3", 100, null, rows)).isEqualTo(Status.OK);
        assertThat(rows).extracting(r -> strings(r).get("field0")).containsExactly("v3", "v4");
    }

    @Test
    void deleteRemovesTheRecord() {
        db.insert("usertable", "user3", fields("field0", "x"));
        assertThat(db.delete("usertable", "user3")).isEqualTo(Status.OK);
        assertThat(db.read("usertable", "user3", null, new HashMap<>())).isEqualTo(Status.NOT_FOUND);
    }

    @Test
    void workloadsCarryYcsbsCoreProportions() {
        assertThat(YcsbRunner.workload("A"))
                .containsEntry("readproportion", "0.5")
                .containsEntry("updateproportion", "0.5");
        assertThat(YcsbRunner.workload("E"))
                .containsEntry("scanproportion", "0.95")
                .containsEntry("insertproportion", "0.05");
        assertThat(YcsbRunner.workload("D")).containsEntry("requestdistribution", "latest");
    }
}
