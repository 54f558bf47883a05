package io.ringbase.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.cluster.LocalCluster;
import io.ringbase.node.NodeConfig;
import io.ringbase.testing.IntegrationTest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ringbase admin} in-process against a 3-node cluster with a cluster secret: every subcommand,
 * its exit codes, and admin endpoints refusing unsigned requests (an unsigned
 * {@code POST /v0/admin/repair} was once accepted).
 */
@IntegrationTest
class AdminCommandTest {

    static final String SECRET = "a-cluster-secret-of-enough-length";

    @TempDir
    Path tmp;

    /** Runs {@code ringbase admin args}. */
    static CommandRun admin(String... args) {
        List<String> all = new ArrayList<>(List.of("admin"));
        all.addAll(List.of(args));
        return CommandRun.of(all.toArray(String[]::new));
    }

    static NodeConfig withSecret(NodeConfig c) {
        return new NodeConfig(
                c.http(),
                c.storage(),
                c.topology(),
                c.replicaTimeoutMs(),
                SECRET.getBytes(StandardCharsets.UTF_8),
                c.hints());
    }

    @Test
    void everySubcommandWorksSignedAndAdminPathsRefuseUnsignedRequests() throws Exception {
        Path secret = tmp.resolve("secret");
        Files.writeString(secret, SECRET + "\n");
        Path wrong = tmp.resolve("wrong");
        Files.writeString(wrong, "some-other-secret-0123456789");
        try (LocalCluster c = new LocalCluster(tmp.resolve("cluster"), 3, AdminCommandTest::withSecret)) {
            c.awaitAllUp(Duration.ofSeconds(15));
            for (int i = 0; i < 30; i++) {
                assertThat(c.put(0, "k" + i, "v" + i).status()).isEqualTo(201);
            }
            String url = c.url(0);

            // unsigned admin requests are refused, reads of status are not
            assertThat(c.send(0, "POST", "/v0/admin/repair", null).status()).isEqualTo(403);
            assertThat(c.send(0, "GET", "/v0/admin/repair", null).status()).isEqualTo(403);
            assertThat(c.send(0, "POST", "/v0/admin/flush", null).status()).isEqualTo(403);
            assertThat(c.send(0, "GET", "/v0/status", null).status()).isEqualTo(200);

            CommandRun noSecret = admin("flush", "--url", url);
            assertThat(noSecret.exitCode()).as(noSecret.err()).isEqualTo(4);
            assertThat(noSecret.err()).contains("403").contains("--secret-file");
            CommandRun wrongSecret = admin("flush", "--url", url, "--secret-file", wrong.toString());
            assertThat(wrongSecret.exitCode()).isEqualTo(4);

            CommandRun flush = admin("flush", "--url", url, "--secret-file", secret.toString());
            assertThat(flush.exitCode()).as(flush.err()).isZero();
            assertThat(flush.out()).contains("\"flushed\":true").contains("\"sstables\":1");

            CommandRun status = admin("status", "--url", url, "--secret-file", secret.toString());
            assertThat(status.exitCode()).as(status.err()).isZero();
            assertThat(status.out())
                    .contains("node      " + url)
                    .contains("cluster   3 nodes, replication factor 3")
                    .contains("peer      " + c.url(1))
                    .contains("peer      " + c.url(2))
                    .contains("repair    idle");
            CommandRun ring = admin("ring", "--url", url);
            assertThat(ring.exitCode()).as(ring.out() + ring.err()).isZero();
            assertThat(ring.out()).contains("cluster 'ringbase', 3 nodes, replication factor 3");
            for (int i = 0; i < 3; i++) {
                assertThat(ring.out())
                        .containsPattern(java.util.regex.Pattern.quote(c.url(i)) + " +NORMAL +" + i + " ");
            }
            CommandRun json = admin("status", "--json", "--url", url);
            assertThat(json.out()).startsWith("{\"node\":\"" + url + "\"");

            CommandRun repair = admin("repair", "--url", url, "--secret-file", secret.toString());
            assertThat(repair.exitCode()).as(repair.out() + repair.err()).isZero();
            assertThat(repair.out())
                    .contains("repair started on " + url)
                    .contains("repair ok: 32 of 32 ranges, 0 failed");

            CommandRun snapshot = admin(
                    "snapshot",
                    "--name",
                    "before-upgrade",
                    "--all-nodes",
                    "--url",
                    url,
                    "--secret-file",
                    secret.toString());
            assertThat(snapshot.exitCode()).as(snapshot.out() + snapshot.err()).isZero();
            for (int i = 0; i < 3; i++) {
                Path dir = c.dataDir(i).resolve("snapshots").resolve("before-upgrade");
                assertThat(dir.resolve("MANIFEST")).exists();
                assertThat(snapshot.out()).contains(c.url(i) + ": ");
            }
            CommandRun again =
                    admin("snapshot", "--name", "before-upgrade", "--url", url, "--secret-file", secret.toString());
            assertThat(again.exitCode()).isEqualTo(1);
            assertThat(again.err()).contains("400").contains("already exists");
            CommandRun badName = admin("snapshot", "--name", "../x", "--url", url, "--secret-file", secret.toString());
            assertThat(badName.exitCode()).isEqualTo(1);

            assertThat(c.put(0, "later", "v").status()).isEqualTo(201);
            admin("flush", "--url", url, "--secret-file", secret.toString());
            assertThat(c.node(0).engine().tableCount()).isEqualTo(2);
            CommandRun compact = admin("compact", "--url", url, "--secret-file", secret.toString());
            assertThat(compact.exitCode()).as(compact.err()).isZero();
            assertThat(compact.out()).contains("\"merged\":2,\"sstables\":1");
            assertThat(c.node(0).engine().tableCount()).isEqualTo(1);

            c.stop(2);
            CommandRun degraded = admin("ring", "--url", url, "--timeout", "2s");
            assertThat(degraded.exitCode()).as(degraded.out() + degraded.err()).isEqualTo(1);
            assertThat(degraded.out()).containsPattern(java.util.regex.Pattern.quote(c.url(2)) + " +down ");
        }
    }

    @Test
    void anUnreachableNodeIsExitCode3AndAnUnreadableSecretIs2() throws Exception {
        int port = LocalCluster.freePorts(1).getFirst();
        CommandRun r = admin("status", "--url", "http://127.0.0.1:" + port, "--timeout", "2s");
        assertThat(r.exitCode()).isEqualTo(3);
        assertThat(r.err())
                .startsWith("ringbase admin: cannot reach http://127.0.0.1:" + port + ": connection refused");
        CommandRun bad = admin(
                "status",
                "--url",
                "http://127.0.0.1:" + port,
                "--secret-file",
                tmp.resolve("none").toString());
        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(bad.err()).contains("cannot read --secret-file").contains("no such file");
    }
}
