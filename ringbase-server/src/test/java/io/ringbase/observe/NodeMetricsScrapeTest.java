package io.ringbase.observe;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.clock.TimeSource;
import io.ringbase.storage.EngineStats;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** A scrape is collected on the low-priority scrape thread, for any number of callers. */
class NodeMetricsScrapeTest {

    private static final EngineStats ENGINE = new EngineStats(
            1000, List.of(new EngineStats.Tier(0, 2, 300)), 3, 0, 0, 4, 0, 0, 5, 0, 0, 6, 0, 7, 0, 8, 0, 0, 0, 0, 0);

    private static NodeMetrics metrics(AtomicReference<Thread> collector) {
        RequestMetrics requests = new RequestMetrics(List.of("entity"), List.of("entity"));
        return new NodeMetrics(
                "test",
                requests,
                () -> {
                    collector.set(Thread.currentThread());
                    return ENGINE;
                },
                Optional.empty(),
                TimeSource.SYSTEM);
    }

    @Test
    void theScrapeRunsOnTheNiceScrapeThreadNotTheCallers() throws Exception {
        AtomicReference<Thread> collector = new AtomicReference<>();
        String text = new String(metrics(collector).scrape(), StandardCharsets.UTF_8);

        assertThat(text).contains("ringbase_memtable_bytes").contains("jvm_memory_used_bytes");
        assertThat(collector.get()).isNotSameAs(Thread.currentThread());
        assertThat(collector.get().getName()).isEqualTo("metrics-scrape");
        // field 19 of /proc/self/task/<tid>/stat is the nice value; the scrape thread stays alive 30 s idle
        Path tasks = Path.of("/proc/self/task");
        if (Files.isDirectory(tasks)) {
            boolean found = false;
            try (var dirs = Files.list(tasks)) {
                for (Path task : dirs.toList()) {
                    String comm = Files.readString(task.resolve("comm")).strip();
                    if (comm.equals("metrics-scrape")) {
                        String stat = Files.readString(task.resolve("stat"));
                        String[] after =
                                stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                        assertThat(Integer.parseInt(after[16])).as("nice").isEqualTo(NodeMetrics.SCRAPE_NICE);
                        found = true;
                    }
                }
            }
            assertThat(found).as("a metrics-scrape thread in /proc/self/task").isTrue();
        }
    }

    @Test
    void concurrentScrapesAllGetTheWholeText() throws Exception {
        NodeMetrics metrics = metrics(new AtomicReference<>());
        ExecutorService callers = Executors.newFixedThreadPool(6);
        try {
            List<Future<byte[]>> scrapes = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                scrapes.add(callers.submit(metrics::scrape));
            }
            for (Future<byte[]> f : scrapes) {
                String text = new String(f.get(30, TimeUnit.SECONDS), StandardCharsets.UTF_8);
                assertThat(text).contains("ringbase_build_info").endsWith("\n");
            }
        } finally {
            callers.shutdownNow();
        }
    }
}
