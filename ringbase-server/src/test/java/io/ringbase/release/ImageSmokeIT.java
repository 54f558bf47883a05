package io.ringbase.release;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ringbase.testing.IntegrationTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The container image of {@code ./mvnw -Pimage} ({@code target/ringbase-image.tar}, a docker-archive built
 * by Jib): its configuration, and its node run without a container runtime by {@code bin/image-smoke.sh}
 * (the layers unpacked, the entrypoint under chroot in new namespaces) answering PUT and GET. Skipped,
 * by assumption, where the image was not built (every build without {@code -Pimage}) or the user is not
 * root (chroot and unshare need it). Paths come from the build: system properties
 * {@code ringbase.imageTar} and {@code ringbase.imageSmoke} (pom.xml's Failsafe configuration).
 */
@IntegrationTest
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class ImageSmokeIT {

    /** The longest a smoke run may take: the script bounds itself at 120 s, plus unpacking. */
    static final Duration DEADLINE = Duration.ofSeconds(150);

    @TempDir
    Path tmp;

    Path image;
    Path smoke;

    @BeforeEach
    void findTheImage() throws Exception {
        image = Path.of(System.getProperty("ringbase.imageTar", "target/ringbase-image.tar"));
        smoke = Path.of(System.getProperty("ringbase.imageSmoke", "../bin/image-smoke.sh"));
        assumeTrue(Files.isRegularFile(image), image + " not built (./mvnw -Pimage builds it)");
        assumeTrue(isRoot(), "not root: bin/image-smoke.sh needs chroot and unshare");
    }

    @Test
    void configRunsTheNodeAsANonRootUserOnPort8080WithDataInAVolume() throws Exception {
        Result manifest = run(List.of("tar", "-xOf", image.toString(), "manifest.json"));
        assertThat(manifest.exitCode()).as(manifest.output()).isZero();
        ObjectMapper json = new ObjectMapper();
        String configName =
                json.readTree(manifest.output()).get(0).get("Config").asText();
        Result configFile = run(List.of("tar", "-xOf", image.toString(), configName));
        JsonNode config = json.readTree(configFile.output()).get("config");
        assertThat(config.get("Entrypoint").get(0).asText()).isEqualTo("/opt/ringbase/bin/entrypoint");
        assertThat(config.get("User").asText()).isEqualTo("10001:10001");
        assertThat(config.get("ExposedPorts").has("8080/tcp")).isTrue();
        assertThat(config.get("Volumes").has("/data")).isTrue();
        assertThat(config.get("Labels").get("org.opencontainers.image.version").asText())
                .isEqualTo(System.getProperty("ringbase.version"));
    }

    @Test
    void itsNodeAnswersPutAndGetAndStopsOnSigterm() throws Exception {
        Result result = run(List.of(smoke.toString(), image.toString()));
        assertThat(result.exitCode()).as(result.output()).isZero();
        assertThat(result.output())
                .contains("PUT /v0/entity?id=smoke: 201")
                .contains("GET /v0/entity?id=smoke: 200 'hello from the image'")
                .contains("\"dataDir\":\"/data\"")
                .contains("stopped by SIGTERM (exit 0)")
                .contains("image-smoke: passed");
    }

    /** Arguments of {@code docker run IMAGE ARGS...} reach {@code serve}: a flag it does not know stops it. */
    @Test
    void argumentsGoToServe() throws Exception {
        Result result = run(List.of(smoke.toString(), image.toString(), "--no-such-flag"));
        assertThat(result.exitCode()).isEqualTo(1);
        assertThat(result.output()).contains("Unknown option: '--no-such-flag'");
    }

    private record Result(int exitCode, String output) {}

    private Result run(List<String> command) throws Exception {
        Path out = Files.createTempFile(tmp, "run", ".out");
        List<String> cmd = new ArrayList<>(command);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile());
        pb.environment().put("TMPDIR", tmp.toString());
        Process p = pb.start();
        p.getOutputStream().close();
        if (!p.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly().waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS);
            throw new IllegalStateException(cmd + " did not exit within " + DEADLINE);
        }
        return new Result(p.exitValue(), Files.readString(out));
    }

    private static boolean isRoot() {
        try {
            return (int) Files.getAttribute(Path.of("/proc/self"), "unix:uid") == 0;
        } catch (Exception e) { // no /proc or no unix view: not Linux, where chroot and unshare are not either
            return false;
        }
    }
}
