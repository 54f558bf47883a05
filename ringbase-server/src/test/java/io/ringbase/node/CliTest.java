package io.ringbase.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.testing.IntegrationTest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The {@code ringbase} command line as a user meets it: help, flag validation, signals, the data-dir lock. */
@IntegrationTest
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class CliTest {

    static final Duration RUN_DEADLINE = Duration.ofSeconds(30);

    @TempDir(cleanup = CleanupMode.ON_SUCCESS) // a failed run keeps its data dir and node logs
    Path tmp;

    @Test
    void helpListsTheServeCommand() throws Exception {
        NodeProcess.Result r = NodeProcess.run(tmp, RUN_DEADLINE, "--help");
        assertThat(r.exitCode()).as("stderr:\n%s", r.stderr()).isZero();
        assertThat(r.stdout()).containsPattern("(?m)^\\s+serve\\s+\\S");
    }

    @Test
    void serveHelpDocumentsEveryFlagWithItsDefault() throws Exception {
        NodeProcess.Result r = NodeProcess.run(tmp, RUN_DEADLINE, "serve", "--help");
        assertThat(r.exitCode()).as("stderr:\n%s", r.stderr()).isZero();
        Map<String, String> options = options(r.stdout());
        // the flags README.md documents, with the defaults it gives
        Map<String, String> defaults = new LinkedHashMap<>();
        defaults.put("--port", "8080");
        defaults.put("--host", "0.0.0.0");
        defaults.put("--data-dir", "./data");
        defaults.put("--cluster", null);
        defaults.put("--self", null);
        defaults.put("--replication-factor", null);
        defaults.put("--wal-sync", "periodic");
        defaults.put("--wal-sync-interval-ms", "1000");
        defaults.put("--memtable-size", "16m");
        defaults.put("--block-cache-size", "0");
        defaults.put("--max-body-size", "16m");
        defaults.put("--workers", "8");
        defaults.put("--queue", "1024");
        defaults.put("--metadata-port-offset", "0");
        defaults.put("--join", "none");
        defaults.put("--replace", "0");
        defaults.put("--stream-rate", "64m");
        defaults.put("--replica-timeout", "1s");
        defaults.put("--speculative-retry", "99p");
        defaults.put("--internal-protocol", "v2");
        defaults.put("--cluster-secret-file", "none");
        defaults.put("--tombstone-grace", "10d");
        defaults.put("--hint-window", "3h");
        defaults.put("--hint-max-size", "1g");
        defaults.put("--max-clock-offset", "500ms");
        defaults.put("--tls-cert", "none, plain HTTP");
        defaults.put("--tls-reload-interval", "5s");
        defaults.put("--functions-engine", "compiler");
        assertThat(options.keySet()).as("options in:\n%s", r.stdout()).containsAll(defaults.keySet());
        for (Map.Entry<String, String> e : options.entrySet()) {
            if (e.getKey().equals("--help") || e.getKey().equals("--version")) {
                continue;
            }
            assertThat(e.getValue()).as("help of %s", e.getKey()).contains("(default: ");
            String expected = defaults.get(e.getKey());
            if (expected != null) {
                assertThat(e.getValue()).as("help of %s", e.getKey()).contains("(default: " + expected + ")");
            }
        }
    }

    private static final Pattern OPTION_LINE = Pattern.compile("^ {2,8}(?:-\\w, )?(--[a-z-]+)");

    /**
     * The option entries of a picocli usage text: long flag -> its whole entry (flag line plus
     * continuation lines) with runs of whitespace collapsed. Entries start at a shallow indent; their
     * wrapped descriptions are indented deeper.
     */
    private static Map<String, String> options(String usage) {
        Map<String, String> out = new LinkedHashMap<>();
        String current = null;
        for (String line : usage.split("\n")) {
            Matcher m = OPTION_LINE.matcher(line);
            if (m.find()) {
                current = m.group(1);
                out.put(current, line.trim());
            } else if (current != null && line.startsWith("          ")) {
                out.put(current, out.get(current) + " " + line.trim());
            } else {
                current = null;
            }
        }
        out.replaceAll((k, v) -> v.replaceAll("\\s+", " ").replace("http: //", "http://"));
        return out;
    }

    @Test
    void clusterWithoutSelfIsRefusedWithAClearMessage() throws Exception {
        NodeProcess.Result r = NodeProcess.run(
                tmp,
                RUN_DEADLINE,
                "serve",
                "--data-dir",
                tmp.resolve("data").toString(),
                "--cluster",
                "http://a:1,http://b:2");
        assertThat(r.exitCode()).isNotZero();
        assertThat(r.stdout()).doesNotContain("ready");
        assertThat(r.stderr()).contains("--self is required");
    }

    @Test
    void selfOutsideTheClusterIsRefusedWithAClearMessage() throws Exception {
        NodeProcess.Result r = NodeProcess.run(
                tmp,
                RUN_DEADLINE,
                "serve",
                "--data-dir",
                tmp.resolve("data").toString(),
                "--cluster",
                "http://a:1,http://b:2",
                "--self",
                "http://c:3");
        assertThat(r.exitCode()).isNotZero();
        assertThat(r.stderr()).contains("--self http://c:3 is not in the cluster list");
    }

    @Test
    void aReplicationFactorAboveTheListIsRefusedInOneLine() throws Exception {
        NodeProcess.Result r = NodeProcess.run(
                tmp,
                RUN_DEADLINE,
                "serve",
                "--data-dir",
                tmp.resolve("data").toString(),
                "--cluster",
                "http://127.0.0.1:1,http://127.0.0.1:2",
                "--self",
                "http://127.0.0.1:1",
                "--replication-factor",
                "3");
        assertThat(r.exitCode()).isNotZero();
        assertThat(r.stdout()).doesNotContain("ready");
        assertThat(r.stderr().lines().findFirst().orElse(""))
                .contains("--replication-factor must be between 1 and 2 (the number of nodes in --cluster), got 3");
    }

    @Test
    void aTombstoneGraceNotLongerThanTheHintWindowIsRefused() throws Exception {
        NodeProcess.Result r = NodeProcess.run(
                tmp,
                RUN_DEADLINE,
                "serve",
                "--data-dir",
                tmp.resolve("data").toString(),
                "--cluster",
                "http://127.0.0.1:1,http://127.0.0.1:2",
                "--self",
                "http://127.0.0.1:1",
                "--tombstone-grace",
                "2h",
                "--hint-window",
                "3h");
        assertThat(r.exitCode()).isNotZero();
        assertThat(r.stdout()).doesNotContain("ready");
        assertThat(r.stderr()).contains("--tombstone-grace").contains("must be longer than --hint-window");
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
        "--wal-sync, x",
        "--port, -1",
        "--port, 65536",
        "--memtable-size, abc",
        "--max-body-size, 17m",
        "--warm-up, 61s",
    })
    void badFlagValueExitsNonZeroNamingTheFlag(String flag, String value) throws Exception {
        NodeProcess.Result r = NodeProcess.run(
                tmp, RUN_DEADLINE, "serve", "--data-dir", tmp.resolve("data").toString(), flag, value);
        assertThat(r.exitCode())
                .as("stdout:\n%s\nstderr:\n%s", r.stdout(), r.stderr())
                .isNotZero();
        assertThat(r.stdout()).doesNotContain("ready");
        // the first line of stderr is the message (the usage follows it); sizes are echoed in bytes
        assertThat(r.stderr().lines().findFirst().orElse("")).contains(flag);
    }

    @Test
    void sigtermWithRequestsInFlightExitsZeroWithinTenSecondsAndKeepsAcknowledgedWrites() throws Exception {
        Path data = tmp.resolve("data");
        AckedWrites writes;
        try (NodeProcess node = NodeProcess.start(data, tmp)) {
            writes = new AckedWrites(new NodeClient(node), 8, 16_384, 65_536, 7, System.nanoTime());
            writes.start();
            assertThat(writes.awaitAckedBytes(4 << 20, Duration.ofSeconds(60))).isTrue();
            int exit = node.sigterm(Duration.ofSeconds(10));
            assertThat(exit)
                    .as("exit code after SIGTERM; stderr:\n%s", node.stderr())
                    .isZero();
            writes.awaitWritersStopped(Duration.ofSeconds(60));
        }
        assertThat(writes.unexpectedStatuses())
                .as("answers other than 201/202/503")
                .isEmpty();
        try (NodeProcess node = NodeProcess.start(data, tmp)) {
            List<String> problems =
                    AckedWrites.differences(new NodeClient(node), writes.expected(), writes.uncertainKeys());
            assertThat(problems)
                    .as("after SIGTERM and restart; stderr:\n%s", node.stderr())
                    .isEmpty();
        }
    }

    @Test
    void secondNodeOnTheSameDataDirectoryFailsSayingItIsInUse() throws Exception {
        Path data = tmp.resolve("data");
        try (NodeProcess first = NodeProcess.start(data, tmp)) {
            NodeProcess.Result second =
                    NodeProcess.run(tmp, RUN_DEADLINE, "serve", "--port", "0", "--data-dir", data.toString());
            assertThat(second.exitCode()).isNotZero();
            assertThat(second.stdout()).doesNotContain("ready");
            assertThat(second.stderr()).contains("in use");
            // the first node is unharmed
            NodeClient client = new NodeClient(first);
            assertThat(client.put("k", new byte[] {1})).isEqualTo(201);
            assertThat(client.get("k").body()).containsExactly(1);
        }
    }
}
