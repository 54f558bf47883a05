package io.ringbase.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.testing.IntegrationTest;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/** {@code ringbase cluster}: a local cluster in one process, as the README tells a user to try it. */
@IntegrationTest
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ClusterCommandTest {

    static final Duration READY_DEADLINE = Duration.ofSeconds(60);
    static final Pattern READY =
            Pattern.compile("Ringbase node (\\d+) of 3 ready at http://localhost:(\\d+) \\(data in (.+)\\)");

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path tmp;

    @Test
    void threeNodesStartTogetherShareTheDataAndStopOnSigterm() throws Exception {
        int base = consecutiveFreePorts(3);
        Path data = tmp.resolve("data");
        Path stderr = tmp.resolve("cluster.stderr.log");
        Process process = NodeProcess.command(
                        "-Xmx384m",
                        List.of(
                                "cluster",
                                "--nodes",
                                "3",
                                "--base-port",
                                Integer.toString(base),
                                "--data-dir",
                                data.toString()))
                .directory(tmp.toFile())
                .redirectError(stderr.toFile())
                .start();
        try {
            process.getOutputStream().close();
            BlockingQueue<String> lines = new LinkedBlockingQueue<>();
            Thread.ofPlatform().daemon().start(() -> {
                try (BufferedReader in =
                        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String line = in.readLine(); line != null; line = in.readLine()) {
                        lines.add(line);
                    }
                } catch (IOException e) {
                    // the process ended
                }
            });
            List<String> stdout = new ArrayList<>();
            long end = System.nanoTime() + READY_DEADLINE.toNanos();
            while (stdout.size() < 4) {
                String line = lines.poll(Math.max(1, end - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (line == null) {
                    throw new AssertionError("no 4 lines within " + READY_DEADLINE + ", got " + stdout + "; stderr:\n"
                            + NodeProcess.read(stderr));
                }
                stdout.add(line);
            }
            for (int n = 1; n <= 3; n++) {
                Matcher m = READY.matcher(stdout.get(n - 1));
                assertThat(m.matches())
                        .as("ready line %d: %s", n, stdout.get(n - 1))
                        .isTrue();
                assertThat(m.group(1)).isEqualTo(Integer.toString(n));
                assertThat(Integer.parseInt(m.group(2))).isEqualTo(base + n - 1);
                assertThat(Path.of(m.group(3)))
                        .isEqualTo(data.resolve("node-" + n).toAbsolutePath().normalize());
                assertThat(Files.isDirectory(data.resolve("node-" + n))).isTrue();
            }
            assertThat(stdout.get(3)).contains("curl").contains("http://localhost:" + base + "/v0/entity?id=");

            NodeClient node1 = new NodeClient(base);
            NodeClient node3 = new NodeClient(base + 2);
            assertThat(node1.put("greeting", "hello".getBytes(StandardCharsets.UTF_8)))
                    .isEqualTo(201);
            NodeClient.Answer a = node3.get("greeting");
            assertThat(a.status()).isEqualTo(200);
            assertThat(new String(a.body(), StandardCharsets.UTF_8)).isEqualTo("hello");
            assertThat(node3.delete("greeting")).isEqualTo(202);
            assertThat(new NodeClient(base + 1).get("greeting").status()).isEqualTo(404);

            process.destroy(); // SIGTERM
            assertThat(process.waitFor(30, TimeUnit.SECONDS))
                    .as("exited within 30 s of SIGTERM; stderr:\n%s", NodeProcess.read(stderr))
                    .isTrue();
            assertThat(process.exitValue())
                    .as("stderr:\n%s", NodeProcess.read(stderr))
                    .isZero();
        } finally {
            if (process.isAlive()) {
                process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void helpListsTheClusterCommandWithItsDefaults() throws Exception {
        NodeProcess.Result top = NodeProcess.run(tmp, CliTest.RUN_DEADLINE, "--help");
        assertThat(top.stdout()).containsPattern("(?m)^\\s+cluster\\s+\\S");
        NodeProcess.Result r = NodeProcess.run(tmp, CliTest.RUN_DEADLINE, "cluster", "--help");
        assertThat(r.exitCode()).as("stderr:\n%s", r.stderr()).isZero();
        assertThat(r.stdout().replaceAll("\\s+", " "))
                .contains("--nodes")
                .contains("(default: 3)")
                .contains("--base-port")
                .contains("(default: 8080)")
                .contains("--data-dir")
                .contains("(default: ./data)");
    }

    @Test
    void aBadNodeCountIsAUsageError() throws Exception {
        NodeProcess.Result r = NodeProcess.run(tmp, CliTest.RUN_DEADLINE, "cluster", "--nodes", "0");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.stderr()).contains("--nodes must be at least 1");
    }

    /** The first of {@code n} consecutive ports that are free on the loopback address right now. */
    static int consecutiveFreePorts(int n) throws IOException {
        Random random = new Random();
        for (int attempt = 0; attempt < 200; attempt++) {
            int base = 20_000 + random.nextInt(30_000);
            List<ServerSocket> held = new ArrayList<>();
            try {
                for (int i = 0; i < n; i++) {
                    ServerSocket s = new ServerSocket();
                    held.add(s);
                    s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), base + i));
                }
                return base;
            } catch (IOException taken) {
                // try another range
            } finally {
                for (ServerSocket s : held) {
                    s.close();
                }
            }
        }
        throw new IOException("no " + n + " consecutive free ports found");
    }
}
