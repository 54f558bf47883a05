package io.ringbase.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.ringbase.storage.Entry;
import io.ringbase.storage.Keys;
import io.ringbase.storage.lsm.LsmEngine;
import io.ringbase.storage.lsm.LsmOptions;
import io.ringbase.testing.IntegrationTest;
import io.ringbase.testing.NeedsCommands;
import io.ringbase.testing.RootOnly;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real full disk: a node whose data directory is a 48 MiB tmpfs takes 1 KiB PUTs
 * until the disk is full and answers 507; once a ballast file made first is deleted, writes resume
 * within 5 s with no restart, and every acknowledged write is readable, then and after a restart.
 * Needs root (to mount the tmpfs), which CI has; elsewhere it is skipped ({@link RootOnly}).
 */
@IntegrationTest
// filling the disk may take up to FILL_LIMIT_MS
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class DiskFullTmpfsTest {

    private static final int MAX_PUTS = 200_000;
    private static final long FILL_LIMIT_MS = 120_000;
    private static final long RESUME_WITHIN_MS = 5_000;

    @TempDir
    Path tmp;

    private static void run(String... command) throws IOException, InterruptedException {
        Path log = Files.createTempFile("ringbase-run-", ".log"); // output to a file: the wait below bounds the run
        try {
            Process p = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
            if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", command) + " failed: " + Files.readString(log));
            }
        } finally {
            Files.delete(log);
        }
    }

    @Test
    @RootOnly // to mount the tmpfs
    @NeedsCommands({"mount", "umount"})
    void fillUntil507FreeSpaceWritesResumeAndNothingAcknowledgedIsLost() throws Exception {
        Path mount = tmp.resolve("tmpfs");
        Files.createDirectories(mount);
        run("mount", "-t", "tmpfs", "-o", "size=48m", "tmpfs", mount.toString());
        try {
            Path ballast = mount.resolve("ballast");
            Files.write(ballast, new byte[8 << 20]);
            Path data = mount.resolve("data");
            LsmOptions options = LsmOptions.defaults(data).withMemtableBytes(2 << 20);
            List<String> acked = new ArrayList<>();
            byte[] value = new byte[1024];
            // random values: SSTables are LZ4-compressed (format 2), so repetitive ones would never fill the disk
            java.util.SplittableRandom random = new java.util.SplittableRandom(7);
            try (LsmEngine engine = LsmEngine.open(options);
                    ServerFixture http = new ServerFixture(engine)) {
                // fill until the disk refuses
                long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(FILL_LIMIT_MS);
                HttpResponse<byte[]> refused = null;
                for (int i = 0; i < MAX_PUTS && System.nanoTime() < deadline; i++) {
                    String key = "k" + i;
                    random.nextBytes(value);
                    HttpResponse<byte[]> r = http.put("/v0/entity?id=" + key, value);
                    if (r.statusCode() == 201) {
                        acked.add(key);
                    } else {
                        refused = r;
                        break;
                    }
                }
                assertThat(refused)
                        .as("the disk filled within " + MAX_PUTS + " PUTs")
                        .isNotNull();
                assertThat(refused.statusCode()).isEqualTo(507);
                assertThat(new String(refused.body(), StandardCharsets.UTF_8))
                        .startsWith("disk full: ")
                        .contains("No space left on device");
                assertThat(acked).hasSizeGreaterThan(1000);
                // reads go on while the disk is full
                assertThat(http.get("/v0/entity?id=" + acked.getFirst()).statusCode())
                        .isEqualTo(200);
                assertThat(http.get("/ready").statusCode()).isEqualTo(503);

                Files.delete(ballast);
                int[] next = {acked.size() + 1_000_000};
                boolean resumed;
                try { // a PUT every 50 ms until one is taken
                    await().atMost(Duration.ofMillis(RESUME_WITHIN_MS))
                            .pollInterval(Duration.ofMillis(50))
                            .pollInSameThread()
                            .until(() -> {
                                String key = "k" + next[0]++;
                                boolean taken =
                                        http.put("/v0/entity?id=" + key, value).statusCode() == 201;
                                if (taken) {
                                    acked.add(key);
                                }
                                return taken;
                            });
                    resumed = true;
                } catch (ConditionTimeoutException e) {
                    resumed = false;
                }
                assertThat(resumed)
                        .as("writes resumed within " + RESUME_WITHIN_MS + " ms of freeing space")
                        .isTrue();
                assertAllReadable(engine, acked);
                for (int i = 0; i < acked.size(); i += acked.size() / 50) {
                    assertThat(http.get("/v0/entity?id=" + acked.get(i)).statusCode())
                            .isEqualTo(200);
                }
            }
            try (LsmEngine reopened = LsmEngine.open(options)) {
                assertAllReadable(reopened, acked);
            }
        } finally {
            run("umount", "-l", mount.toString());
        }
    }

    private static void assertAllReadable(LsmEngine engine, List<String> keys) throws IOException {
        int missing = 0;
        for (String key : keys) {
            Entry e = engine.get(Keys.utf8(key));
            if (e == null || e.isTombstone() || e.value().length != 1024) {
                missing++;
            }
        }
        assertThat(missing).as("acknowledged writes missing of " + keys.size()).isZero();
    }
}
