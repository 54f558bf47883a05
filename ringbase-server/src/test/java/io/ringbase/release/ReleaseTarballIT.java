package io.ringbase.release;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.cli.ServeCommand;
import io.ringbase.testing.IntegrationTest;
import io.ringbase.testing.NeedsCommands;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The release tarball unpacked in a temporary directory, away from the source tree and its Maven: its
 * layout, its {@code bin/ringbase --version}, a node it serves answering PUT and GET, the ahead-of-time
 * cache its {@code aot-train} writes and its {@code serve} uses, the clear failure
 * when no Java 25 is to be found, and a {@code conf/ringbase.conf} that names every flag of {@code serve}.
 * The tarball's path and the version come from the build (system properties {@code ringbase.tarball} and
 * {@code ringbase.version}, set in pom.xml's Failsafe configuration).
 */
@IntegrationTest
@NeedsCommands({"tar", "xz"}) // tar -xJf runs xz
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ReleaseTarballIT {

    static final Duration DEADLINE = Duration.ofSeconds(60);
    static final Pattern READY = Pattern.compile("Ringbase node ready at https?://[^:/ ]+:(\\d+) ");

    @TempDir
    Path tmp;

    Path home;
    String version;

    @BeforeEach
    void unpack() throws Exception {
        Path tarball = Path.of(System.getProperty("ringbase.tarball", "target/ringbase-missing.tar.xz"));
        version = System.getProperty("ringbase.version");
        assertThat(tarball).as("./mvnw package builds it").isRegularFile();
        Path unpacked = Files.createDirectories(tmp.resolve("opt"));
        Result tar =
                run(new ProcessBuilder("tar", "-xJf", tarball.toAbsolutePath().toString(), "-C", unpacked.toString()));
        assertThat(tar.exitCode()).as(tar.stderr()).isZero();
        home = unpacked.resolve("ringbase-" + version);
    }

    @Test
    void holdsTheLauncherTheJarTheConfigurationTheUnitAndTheDocs() {
        assertThat(home.resolve("bin/ringbase")).isExecutable();
        assertThat(home.resolve("lib/ringbase.jar")).isRegularFile();
        assertThat(home.resolve("conf/logback.xml.example")).isRegularFile();
        assertThat(home.resolve("conf/ringbase.conf")).isRegularFile();
        assertThat(home.resolve("systemd/ringbase.service")).content().contains("ExecStart=");
        assertThat(home.resolve("grafana/ringbase-dashboard.json")).isRegularFile();
        for (String doc : List.of("README.md", "operations.md", "http-api.md", "design.md", "format.md")) {
            assertThat(home.resolve("docs").resolve(doc)).isRegularFile();
        }
        assertThat(home.resolve("LICENSE")).content().contains("Apache License").contains("Version 2.0");
        assertThat(home.resolve("CHANGELOG.md")).isRegularFile();
        assertThat(home.resolve("pom.xml")).doesNotExist();
        assertThat(home.resolve("mvnw")).doesNotExist();
    }

    /**
     * Every jar in lib/ has its entries stored, not deflated, so that xz compresses them across jars; only
     * other systems' native libraries are left out of them (LZ4's Linux x86-64 library stays, Windows's goes).
     */
    @Test
    void everyJarIsStoredAndKeepsItsLinuxNatives() throws Exception {
        List<Path> jars;
        try (var listing = Files.list(home.resolve("lib"))) {
            jars = listing.filter(p -> p.toString().endsWith(".jar")).toList();
        }
        assertThat(jars).hasSizeGreaterThan(20);
        for (Path jar : jars) {
            try (java.util.zip.ZipFile zip = new java.util.zip.ZipFile(jar.toFile())) {
                assertThat(zip.stream().filter(e -> e.getMethod() != java.util.zip.ZipEntry.STORED))
                        .as("deflated entries of %s", jar.getFileName())
                        .isEmpty();
            }
        }
        Path lz4 = jars.stream()
                .filter(p -> p.getFileName().toString().startsWith("lz4-java-"))
                .findFirst()
                .orElseThrow();
        assertThat(entries(lz4))
                .contains("net/jpountz/util/linux/amd64/liblz4-java.so", "net/jpountz/lz4/LZ4Factory.class")
                .noneMatch(e -> e.startsWith("net/jpountz/util/win32/"));
    }

    /**
     * The server jar holds only our classes (no YCSB, htrace or jackson), the libraries
     * are their own jars in lib/, and neither holds bench code, YCSB, htrace or jackson 1.x.
     */
    @Test
    void theServerJarHoldsOnlyOurClassesAndLibHoldsNoBenchLibraries() throws Exception {
        List<String> serverEntries = entries(home.resolve("lib/ringbase.jar"));
        assertThat(serverEntries).anyMatch(e -> e.equals("io/ringbase/cli/Main.class"));
        assertThat(serverEntries)
                .filteredOn(e -> e.endsWith(".class"))
                .allMatch(e -> e.startsWith("io/ringbase/"), "only io/ringbase classes")
                .noneMatch(e -> e.startsWith("io/ringbase/bench/"));
        List<String> libs;
        try (var files = Files.list(home.resolve("lib"))) {
            libs = files.map(f -> f.getFileName().toString()).sorted().toList();
        }
        assertThat(libs)
                .contains("ringbase.jar")
                .noneMatch(l -> l.startsWith("rocksdbjni")) // the add-on tarball's
                .anyMatch(l -> l.startsWith("netty-codec-http-"))
                .anyMatch(l -> l.startsWith("jackson-databind-2."))
                .noneMatch(l -> l.contains("ycsb")
                        || l.startsWith("core-0.17")
                        || l.contains("htrace")
                        || l.contains("jackson-mapper-asl")
                        || l.contains("jackson-core-asl")
                        || l.contains("xchart")
                        || l.contains("HdrHistogram"));
        for (String lib : libs) {
            assertThat(entries(home.resolve("lib").resolve(lib)))
                    .as(lib)
                    .noneMatch(e -> e.startsWith("site/ycsb/")
                            || e.startsWith("org/apache/htrace/")
                            || e.startsWith("org/codehaus/jackson/")
                            || e.startsWith("io/ringbase/bench/"));
        }
    }

    /**
     * The default tarball leaves RocksDB's library out: {@code serve --engine rocksdb} says in one line how
     * to add it; the add-on tarball holds just that library, under the same top directory, and unpacked
     * over the installation makes {@code --engine rocksdb} start.
     */
    @Test
    void theRocksDbEngineIsAnAddOnThatSaysHowToGetIt() throws Exception {
        Path tarball = Path.of(System.getProperty("ringbase.tarball", "target/ringbase-missing.tar.xz"));
        Path addOn = Path.of(System.getProperty("ringbase.rocksdbTarball", "target/ringbase-missing-rocksdb.tar.gz"));
        Result refused = run(launcher(
                "serve",
                "--engine",
                "rocksdb",
                "--port",
                "0",
                "--data-dir",
                tmp.resolve("r").toString()));
        assertThat(refused.exitCode()).isEqualTo(2);
        assertThat(refused.stderr().strip().lines())
                .anyMatch(l -> l.contains("--engine rocksdb: the RocksDB engine is not installed")
                        && l.contains("ringbase-" + version + "-rocksdb-engine.tar.gz"));
        Result list =
                run(new ProcessBuilder("tar", "-tzf", addOn.toAbsolutePath().toString()));
        assertThat(list.stdout().lines().filter(l -> !l.endsWith("/")))
                .singleElement()
                .asString()
                .startsWith("ringbase-" + version + "/lib/rocksdbjni-");
        // RocksDB's 29 MB and the unused natives of Ratis's shaded jar are out, and the stored jars share xz's
        // dictionary (ReleaseArchive): 11.7 MB when this bound was set
        assertThat(Files.size(tarball)).as("default tarball bytes").isLessThanOrEqualTo(12_000_000L);
        Result unpack = run(new ProcessBuilder(
                "tar",
                "-xzf",
                addOn.toAbsolutePath().toString(),
                "-C",
                home.getParent().toString()));
        assertThat(unpack.exitCode()).as(unpack.stderr()).isZero();
        Process node = launcher(
                        "serve",
                        "--engine",
                        "rocksdb",
                        "--port",
                        "0",
                        "--host",
                        "127.0.0.1",
                        "--data-dir",
                        tmp.resolve("rocks").toString())
                .redirectError(tmp.resolve("rocks.stderr.log").toFile())
                .start();
        try {
            assertThat(awaitReadyPort(node)).isPositive();
            assertThat(tmp.resolve("rocks").resolve("ENGINE")).content().isEqualTo("rocksdb\n");
            node.destroy();
            assertThat(node.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();
        } finally {
            node.destroyForcibly();
        }
    }

    /**
     * A node of an elastic cluster (membership on the Raft metadata log) starts from the tarball, whose
     * copy of Ratis's shaded jar lacks the native libraries it never loads: its metadata server starts,
     * elects itself and applies the first epoch. (A new node of one answers no data: it waits for peers.)
     */
    @Test
    void anElasticNodeRunsItsMetadataLogFromTheLeanRatisJar() throws Exception {
        runsItsMetadataLog("elastic", "http", List.of());
    }

    /**
     * As {@link #anElasticNodeRunsItsMetadataLogFromTheLeanRatisJar} with {@code https://} URLs: the metadata
     * port speaks mutual TLS (Ratis over gRPC, the JDK's TLS provider), which needs none of the shaded
     * netty-tcnative the lean jar leaves out; the node's own client submits the first epoch over it.
     */
    @Test
    void anElasticNodeRunsItsMetadataLogOverTlsFromTheLeanRatisJar() throws Exception {
        io.ringbase.testing.TestCertificates ca = new io.ringbase.testing.TestCertificates("tarball-ca");
        Path cert = tmp.resolve("node.pem");
        Path key = tmp.resolve("node.key");
        io.ringbase.testing.TestCertificates.write(ca.issue("node"), cert, key);
        Path caFile = ca.writeCa(tmp.resolve("ca.pem"));
        runsItsMetadataLog(
                "elastic-tls",
                "https",
                List.of("--tls-cert", cert.toString(), "--tls-key", key.toString(), "--tls-ca", caFile.toString()));
    }

    private void runsItsMetadataLog(String name, String scheme, List<String> flags) throws Exception {
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        String self = scheme + "://127.0.0.1:" + port;
        List<String> args = new ArrayList<>(List.of(
                "serve",
                "--host",
                "127.0.0.1",
                "--cluster",
                self,
                "--self",
                self,
                "--metadata-port-offset",
                "1",
                "--data-dir",
                tmp.resolve(name).toString()));
        args.addAll(flags);
        Path log = tmp.resolve(name + ".stderr.log");
        Process node = launcher(args.toArray(String[]::new))
                .redirectError(log.toFile())
                .start();
        try {
            assertThat(awaitReadyPort(node)).isEqualTo(port);
            org.awaitility.Awaitility.await()
                    .atMost(DEADLINE)
                    .until(() -> Files.readString(log).contains("cluster metadata initialized"));
            assertThat(Files.readString(log))
                    .contains("metadata server 1 started")
                    .contains(scheme.equals("https") ? "(mutual TLS)" : "metadata server 1 started")
                    .contains("metadata epoch 0 -> 1")
                    .doesNotContain("UnsatisfiedLinkError")
                    .doesNotContain("NoClassDefFoundError");
            node.destroy();
            assertThat(node.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();
        } finally {
            node.destroyForcibly();
        }
    }

    private static List<String> entries(Path jar) throws IOException {
        try (var zip = new java.util.zip.ZipFile(jar.toFile())) {
            return zip.stream().map(java.util.zip.ZipEntry::getName).toList();
        }
    }

    @Test
    void benchIsNotInTheReleaseAndSaysWhereItIs() throws Exception {
        Result r = run(launcher("bench", "--workload", "put"));
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.stderr()).contains("bench is not part of the release").contains("source checkout");
    }

    @Test
    void versionIsTheBuildsVersion() throws Exception {
        Result r = run(launcher("--version"));
        assertThat(r.exitCode()).as(r.stderr()).isZero();
        assertThat(r.stdout()).contains(version);
    }

    @Test
    void serveAnswersPutAndGetWithNoBuildStep() throws Exception {
        Path data = tmp.resolve("data");
        Process node = launcher("serve", "--port", "0", "--host", "127.0.0.1", "--data-dir", data.toString())
                .redirectError(tmp.resolve("node.stderr.log").toFile())
                .start();
        try {
            int port = awaitReadyPort(node);
            HttpClient http = HttpClient.newBuilder().connectTimeout(DEADLINE).build();
            URI entity = URI.create("http://127.0.0.1:" + port + "/v0/entity?id=greeting");
            HttpResponse<String> put = http.send(
                    HttpRequest.newBuilder(entity)
                            .timeout(DEADLINE)
                            .PUT(HttpRequest.BodyPublishers.ofString("hello"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(put.statusCode()).isEqualTo(201);
            HttpResponse<String> get = http.send(
                    HttpRequest.newBuilder(entity).timeout(DEADLINE).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(get.statusCode()).isEqualTo(200);
            assertThat(get.body()).isEqualTo("hello");
            HttpResponse<String> status = http.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v0/status"))
                            .timeout(DEADLINE)
                            .GET()
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(status.body()).contains("\"version\":\"" + version + "\"");
            node.destroy(); // SIGTERM: flush and exit 0
            assertThat(node.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();
            assertThat(node.exitValue())
                    .as(Files.readString(tmp.resolve("node.stderr.log")))
                    .isZero();
        } finally {
            node.destroyForcibly().waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        }
        assertThat(Files.readString(tmp.resolve("node.stderr.log")))
                .as("the built-in logging configuration reports no error")
                .doesNotContain("|-ERROR");
        assertThat(home.resolve("target")).as("nothing was built").doesNotExist();
    }

    /**
     * {@code bin/ringbase aot-train} writes lib/ringbase.aot and its key; {@code serve} then starts with the
     * cache (the JVM would print errors if it did not match) and answers; a key of another build makes the
     * launcher say it does not use the cache.
     */
    @Test
    void aotTrainWritesACacheThatServeUsesWhileItMatches() throws Exception {
        Result train = run(launcher("aot-train", "--duration", "2s", "--connections", "4"));
        assertThat(train.exitCode()).as(train.stderr()).isZero();
        assertThat(train.stdout()).containsPattern("aot-train: [\\d,]+ requests in ");
        assertThat(train.stderr())
                .contains("ringbase: wrote the ahead-of-time cache " + home.resolve("lib/ringbase.aot"))
                .doesNotContain("[error]")
                .doesNotContain("[warning]");
        assertThat(home.resolve("lib/ringbase.aot")).isRegularFile();
        assertThat(home.resolve("lib/ringbase.aot.key")).content().contains("cp=" + home.resolve("lib") + "/*");
        try (var leftovers = Files.list(home.resolve("lib"))) {
            assertThat(leftovers.map(p -> p.getFileName().toString()))
                    .noneMatch(n -> n.endsWith(".config") || n.endsWith(".new") || n.endsWith(".log"));
        }

        Process node = launcher(
                        "serve",
                        "--port",
                        "0",
                        "--host",
                        "127.0.0.1",
                        "--data-dir",
                        tmp.resolve("data").toString())
                .redirectError(tmp.resolve("aot-node.stderr.log").toFile())
                .start();
        try {
            int port = awaitReadyPort(node);
            HttpClient http = HttpClient.newBuilder().connectTimeout(DEADLINE).build();
            HttpResponse<String> put = http.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v0/entity?id=k"))
                            .timeout(DEADLINE)
                            .PUT(HttpRequest.BodyPublishers.ofString("v"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(put.statusCode()).isEqualTo(201);
            node.destroy();
            assertThat(node.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();
        } finally {
            node.destroyForcibly().waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        }
        assertThat(Files.readString(tmp.resolve("aot-node.stderr.log")))
                .startsWith("ringbase: using the ahead-of-time cache " + home.resolve("lib/ringbase.aot"))
                .doesNotContain("[error]")
                .doesNotContain("[warning]");

        Files.writeString(home.resolve("lib/ringbase.aot.key"), "java=elsewhere\n");
        Result stale = run(launcher("serve", "--port", "-1"));
        assertThat(stale.exitCode()).isEqualTo(2);
        assertThat(stale.stderr())
                .startsWith("ringbase: not using the ahead-of-time cache")
                .contains("bin/ringbase aot-train makes a new one");
    }

    @Test
    void withoutJava25ItSaysWhatToInstallAndExits1() throws Exception {
        Path fakeJdk = Files.createDirectories(tmp.resolve("jdk-17/bin"));
        Path fakeJava = Files.writeString(
                fakeJdk.resolve("java"), "#!/bin/sh\necho '    java.specification.version = 17' >&2\n");
        assertThat(fakeJava.toFile().setExecutable(true)).isTrue();
        ProcessBuilder pb = launcher("serve");
        pb.environment().put("JAVA_HOME", tmp.resolve("jdk-17").toString());
        pb.environment().put("RINGBASE_JVM_DIRS", tmp.resolve("no-jvms").toString());
        pb.environment().put("PATH", fakeJdk + ":/usr/bin:/bin");
        Result r = run(pb);
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.stderr())
                .startsWith("ringbase: no Java 25 or newer found.")
                .contains(fakeJava + " (17)")
                .contains("set JAVA_HOME");
    }

    @Test
    void theExampleConfigurationNamesEveryFlagOfServe() throws Exception {
        String conf = Files.readString(home.resolve("conf/ringbase.conf"));
        List<String> missing = new ArrayList<>();
        for (OptionSpec option :
                new CommandLine(new ServeCommand()).getCommandSpec().options()) {
            String name = option.longestName();
            if (option.hidden() || name.equals("--help") || name.equals("--version")) {
                continue;
            }
            if (!Pattern.compile("^# " + Pattern.quote(name) + "\\b", Pattern.MULTILINE)
                    .matcher(conf)
                    .find()) {
                missing.add(name);
            }
        }
        assertThat(missing).as("flags of serve not in conf/ringbase.conf").isEmpty();
    }

    /** {@code bin/ringbase args} of the unpacked tarball, run from a directory outside it, on this JDK. */
    private ProcessBuilder launcher(String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(home.resolve("bin/ringbase").toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd)
                .directory(Files.createDirectories(tmp.resolve("cwd")).toFile());
        Map<String, String> env = pb.environment();
        env.put("JAVA_HOME", System.getProperty("java.home"));
        env.put("RINGBASE_HEAP", "128m");
        env.remove("RINGBASE_JAVA_OPTS");
        return pb;
    }

    private static int awaitReadyPort(Process node) throws Exception {
        CompletableFuture<Integer> port = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try (BufferedReader out =
                    new BufferedReader(new InputStreamReader(node.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = out.readLine()) != null; ) {
                    Matcher m = READY.matcher(line);
                    if (m.find()) {
                        port.complete(Integer.parseInt(m.group(1)));
                    }
                }
                port.completeExceptionally(new IOException("stdout closed before the ready line"));
            } catch (IOException e) {
                port.completeExceptionally(e);
            }
        });
        return port.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
    }

    private record Result(int exitCode, String stdout, String stderr) {}

    private Result run(ProcessBuilder pb) throws Exception {
        Path out = Files.createTempFile(tmp, "run", ".out");
        Path err = Files.createTempFile(tmp, "run", ".err");
        Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        p.getOutputStream().close();
        if (!p.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS);
            throw new IllegalStateException(pb.command() + " did not exit within " + DEADLINE);
        }
        return new Result(p.exitValue(), Files.readString(out), Files.readString(err));
    }
}
