package io.ringbase.node;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ringbase.testing.IntegrationTest;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Startup failures of {@code ringbase serve} as an operator meets them: one line on stderr, no stack
 * trace, and the exit code docs/operations.md documents; and {@code --log-format json} with the
 * node's URL in every line, and the access log.
 */
@IntegrationTest
class StartupErrorsTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    static final Duration DEADLINE = Duration.ofSeconds(30);

    @TempDir
    Path tmp;

    /** The failure's line: the last line of stderr; and no stack trace anywhere. */
    private static String errorLine(NodeProcess.Result r) {
        assertThat(r.stderr())
                .as("no stack trace in:\n%s", r.stderr())
                .doesNotContain("\tat ")
                .doesNotContain("Exception:");
        List<String> lines = r.stderr().lines().toList();
        assertThat(lines).as("stderr").isNotEmpty();
        return lines.getLast();
    }

    @Test
    void aPortInUseIsExitCode3() throws Exception {
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress("0.0.0.0", 0));
            int port = taken.getLocalPort();
            NodeProcess.Result r = NodeProcess.run(
                    tmp,
                    DEADLINE,
                    "serve",
                    "--port",
                    Integer.toString(port),
                    "--data-dir",
                    tmp.resolve("data").toString());
            assertThat(r.exitCode()).as(r.stderr()).isEqualTo(3);
            assertThat(errorLine(r))
                    .isEqualTo("ringbase serve: cannot listen on 0.0.0.0:" + port + ": address already in use");
        }
    }

    @Test
    void aLockedDataDirectoryIsExitCode4() throws Exception {
        Path data = tmp.resolve("data");
        try (NodeProcess _ = NodeProcess.start(data, tmp)) { // holds the lock
            NodeProcess.Result r =
                    NodeProcess.run(tmp, DEADLINE, "serve", "--port", "0", "--data-dir", data.toString());
            assertThat(r.exitCode()).as(r.stderr()).isEqualTo(4);
            assertThat(errorLine(r))
                    .isEqualTo("ringbase serve: data directory " + data.toAbsolutePath()
                            + " is in use by another Ringbase process");
        }
    }

    @Test
    void anUnusableDataDirectoryIsExitCode4() throws Exception {
        Path file = Files.writeString(tmp.resolve("a-file"), "x");
        NodeProcess.Result r = NodeProcess.run(
                tmp,
                DEADLINE,
                "serve",
                "--port",
                "0",
                "--data-dir",
                file.resolve("data").toString());
        assertThat(r.exitCode()).as(r.stderr()).isEqualTo(4);
        assertThat(errorLine(r))
                .startsWith("ringbase serve: data directory " + file.resolve("data") + " cannot be used: ");
    }

    @Test
    void aDamagedDataDirectoryIsExitCode5() throws Exception {
        Path data = Files.createDirectories(tmp.resolve("data"));
        Files.writeString(data.resolve("MANIFEST"), "not a manifest at all, but long enough to have a header");
        NodeProcess.Result r = NodeProcess.run(tmp, DEADLINE, "serve", "--port", "0", "--data-dir", data.toString());
        assertThat(r.exitCode()).as(r.stderr()).isEqualTo(5);
        assertThat(errorLine(r))
                .startsWith("ringbase serve: data directory " + data.toAbsolutePath() + " is damaged: ")
                .contains("bad manifest magic");
    }

    @Test
    void aBadFlagIsOneLineAndExitCode2() throws Exception {
        NodeProcess.Result r = NodeProcess.run(
                tmp,
                DEADLINE,
                "serve",
                "--port",
                "70000",
                "--data-dir",
                tmp.resolve("d").toString());
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.stderr().strip())
                .isEqualTo("ringbase serve: --port must be between 0 and 65535, got 70000 (see ringbase serve --help)");
        NodeProcess.Result unknown = NodeProcess.run(tmp, DEADLINE, "serve", "--no-such-flag");
        assertThat(unknown.exitCode()).isEqualTo(2);
        assertThat(unknown.stderr().strip().lines()).hasSize(1);
    }

    @Test
    void aBadDurationIsOneCleanLine() throws Exception {
        NodeProcess.Result r = NodeProcess.run(
                tmp,
                DEADLINE,
                "serve",
                "--request-timeout",
                "soon",
                "--data-dir",
                tmp.resolve("d").toString());
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(errorLine(r))
                .isEqualTo("ringbase serve: Invalid value for option '--request-timeout': not a "
                        + "duration: 'soon' (examples: 500ms, 30s, 3h, 10d) (see ringbase serve --help)");
    }

    @Test
    void aMisspeltLogLevelIsExitCode2() throws Exception {
        ProcessBuilder pb = NodeProcess.command(
                NodeProcess.HEAP,
                List.of("serve", "--port", "0", "--data-dir", tmp.resolve("d").toString()));
        pb.environment().put("RINGBASE_LOG_LEVEL", "verbose");
        Path log = tmp.resolve("out.log");
        Process p = pb.redirectErrorStream(true).redirectOutput(log.toFile()).start();
        p.getOutputStream().close();
        boolean exited = p.waitFor(30, TimeUnit.SECONDS);
        String out = Files.readString(log);
        assertThat(exited).as("exited; %s", out).isTrue();
        assertThat(p.exitValue()).as(out).isEqualTo(2);
        assertThat(out.strip())
                .isEqualTo("ringbase serve: RINGBASE_LOG_LEVEL must be one of TRACE, DEBUG, INFO, "
                        + "WARN, ERROR, got 'verbose' (see ringbase serve --help)");
    }

    @Test
    void unusableTlsFilesAreExitCode6BeforeTheDataDirectoryIsOpened() throws Exception {
        Path key = Files.writeString(tmp.resolve("node.key"), "not a key\n");
        NodeProcess.Result missing = NodeProcess.run(
                tmp,
                DEADLINE,
                "serve",
                "--port",
                "0",
                "--warm-up",
                "0s",
                "--data-dir",
                tmp.resolve("d").toString(),
                "--tls-cert",
                tmp.resolve("nope.pem").toString(),
                "--tls-key",
                key.toString());
        assertThat(missing.exitCode()).as(missing.stderr()).isEqualTo(6);
        assertThat(missing.stderr().strip())
                .isEqualTo(
                        "ringbase serve: TLS certificate " + tmp.resolve("nope.pem") + " cannot be read: no such file");
        assertThat(tmp.resolve("d")).doesNotExist();
    }

    @Test
    void aBadSecretFileIsExitCode6() throws Exception {
        NodeProcess.Result missing = NodeProcess.run(
                tmp,
                DEADLINE,
                "serve",
                "--port",
                "0",
                "--data-dir",
                tmp.resolve("d").toString(),
                "--cluster-secret-file",
                tmp.resolve("nope").toString());
        assertThat(missing.exitCode()).isEqualTo(6);
        assertThat(missing.stderr().strip())
                .isEqualTo(
                        "ringbase serve: cannot read --cluster-secret-file " + tmp.resolve("nope") + ": no such file");
        Path shortSecret = Files.writeString(tmp.resolve("short"), "tooshort\n");
        NodeProcess.Result tooShort = NodeProcess.run(
                tmp,
                DEADLINE,
                "serve",
                "--port",
                "0",
                "--data-dir",
                tmp.resolve("d").toString(),
                "--cluster-secret-file",
                shortSecret.toString());
        assertThat(tooShort.exitCode()).isEqualTo(6);
        assertThat(tooShort.stderr()).contains("holds 8 characters; use at least 16");
    }

    @Test
    void jsonLogsNameTheNodeOnEveryLineAndTheAccessLogHasEveryRequest() throws Exception {
        String stderr;
        int port;
        try (NodeProcess node = NodeProcess.start(tmp.resolve("data"), tmp, "--log-format", "json", "--access-log")) {
            port = node.port();
            NodeClient client = new NodeClient(node);
            assertThat(client.put("k", new byte[] {1})).isEqualTo(201);
            assertThat(client.get("k").status()).isEqualTo(200);
            assertThat(node.sigterm(DEADLINE)).isZero();
            stderr = node.stderr();
        }
        assertThat(stderr).as("logback's own errors (a bad logback.xml)").doesNotContain("|-ERROR");
        List<String> lines = stderr.lines().filter(l -> !l.isBlank()).toList();
        assertThat(lines).isNotEmpty();
        String url = "http://localhost:" + port;
        boolean sawAccess = false;
        boolean sawReadyUrl = false;
        for (String line : lines) {
            JsonNode o = JSON.readTree(line); // every line is one JSON object
            assertThat(o.path("level").textValue()).as(line).isNotNull();
            String nodeUrl = o.path("context").path("properties").path("node").textValue();
            assertThat(nodeUrl).as("node in %s", line).isNotNull();
            sawReadyUrl |= url.equals(nodeUrl);
            if ("io.ringbase.access".equals(o.path("loggerName").textValue())) {
                String m = o.path("formattedMessage").textValue();
                assertThat(m).matches(".* (PUT /v0/entity\\?id=k 201|GET /v0/entity\\?id=k 200) \\d+us");
                sawAccess = true;
            }
        }
        assertThat(sawReadyUrl)
                .as("lines after the bind name %s:\n%s", url, stderr)
                .isTrue();
        assertThat(sawAccess).as("access lines in:\n%s", stderr).isTrue();
    }
}
