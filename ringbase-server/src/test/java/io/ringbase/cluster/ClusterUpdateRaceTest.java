package io.ringbase.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ringbase.functions.TestModules;
import io.ringbase.testing.IntegrationTest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client writing keys while an {@code update} job upper-cases them, on a 3-node cluster: no
 * acknowledged write is lost. After both end, each hot key holds its last acknowledged value, either as
 * written (the job had passed the key, or lost to it) or upper-cased (the job saw it); never the
 * upper-cased form of an older value (docs/functions.md, "update and concurrent writers").
 */
@IntegrationTest
@Timeout(120)
class ClusterUpdateRaceTest {

    private static final int KEYS = 400;
    private static final int HOT = 40;

    @TempDir
    Path tmp;

    @Test
    void aWriterRacingAnUpdateJobLosesNoWrite() throws Exception {
        ObjectMapper json = new ObjectMapper();
        try (LocalCluster c = new LocalCluster(tmp, 3);
                HttpClient client = HttpClient.newHttpClient()) {
            HttpResponse<String> up = client.send(
                    HttpRequest.newBuilder(URI.create(c.url(0) + "/v0/functions/upper"))
                            .PUT(HttpRequest.BodyPublishers.ofByteArray(TestModules.wasm("upper")))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(up.statusCode()).isEqualTo(201);
            for (int i = 0; i < KEYS; i++) {
                assertThat(c.put(i % 3, key(i), "initial-" + i).status()).isEqualTo(201);
            }
            ConcurrentHashMap<String, String> lastAcked = new ConcurrentHashMap<>();
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong failures = new AtomicLong();
            AtomicLong writes = new AtomicLong();
            CountDownLatch writerDone = new CountDownLatch(1);
            Thread writer = new Thread(() -> {
                try {
                    for (int seq = 0; !stop.get(); seq++) {
                        String k = key((seq % HOT) * 10); // every tenth key: HOT hot keys
                        String v = "w" + seq;
                        LocalCluster.Reply r = c.put(1 + seq % 2, k, v);
                        if (r.status() == 201) {
                            lastAcked.put(k, v);
                            writes.incrementAndGet();
                        } else {
                            failures.incrementAndGet();
                        }
                    }
                } finally {
                    writerDone.countDown();
                }
            });
            writer.start();
            LocalCluster.await(Duration.ofSeconds(10), "the writer to start", () -> writes.get() > 20);
            HttpResponse<String> job = client.send(
                    // onError=skip: a hot key the writer changed during each of the job's attempts is reported
                    // and skipped, by design, and must not stop the job (a busy machine makes that likely)
                    HttpRequest.newBuilder(
                                    URI.create(c.url(0) + "/v0/process?fn=upper&start=key&mode=update&onError=skip"))
                            .timeout(Duration.ofSeconds(90))
                            .POST(HttpRequest.BodyPublishers.noBody())
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            stop.set(true);
            assertThat(writerDone.await(30, TimeUnit.SECONDS)).isTrue();
            assertThat(job.statusCode()).as(job.body()).isEqualTo(200);
            JsonNode summary = json.readTree(job.body());
            assertThat(summary.get("keysSeen").asLong()).as(job.body()).isEqualTo(KEYS);
            assertThat(summary.get("errors").asLong()).as(job.body()).isLessThanOrEqualTo(HOT);
            for (JsonNode e : summary.get("firstErrors")) {
                assertThat(e.asText())
                        .as("only a hot key may fail, lost to the writer")
                        .contains("clients changed the key");
            }
            assertThat(failures.get()).as("writes refused").isZero();
            assertThat(writes.get()).isGreaterThan(50);

            List<String> lost = new ArrayList<>();
            for (var e : lastAcked.entrySet()) {
                String now = c.get(0, e.getKey()).body();
                if (!now.equalsIgnoreCase(e.getValue())) {
                    lost.add(e.getKey() + ": acked " + e.getValue() + ", now " + now);
                }
            }
            assertThat(lost).as("acknowledged writes lost").isEmpty();
            // the keys no one wrote were all updated
            for (int i = 1; i < KEYS; i += 10) {
                assertThat(c.get(0, key(i)).body()).isEqualTo(("initial-" + i).toUpperCase(Locale.ROOT));
            }
        }
    }

    private static String key(int i) {
        return String.format("key%04d", i);
    }
}
