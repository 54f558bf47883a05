package io.ringbase.bench;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/**
 * async-profiler attached to running node JVMs with {@code jcmd <pid> JVMTI.agent_load libasyncProfiler.so
 * "<command>"} (as {@code bench/profile.sh} does). The library comes from {@code tools.profiler:async-profiler}
 * on Maven Central (latest release, or {@code ASYNC_PROFILER_VERSION}), cached under
 * {@code <cache>/async-profiler-<version>/}. One event at a time: start, then stop into an HTML flame graph
 * plus a text file whose flat section lists the top frames by self samples.
 */
public final class Profiler {

    private static final String MAVEN = "https://repo.maven.apache.org/maven2/tools/profiler/async-profiler/";

    private final Path lib;
    private final String version;
    private String cpuEvent = "cpu";

    private Profiler(Path lib, String version) {
        this.lib = lib;
        this.version = version;
    }

    /**
     * Finds or downloads async-profiler into {@code cache}.
     *
     * @throws IOException when Maven Central cannot be reached and nothing is cached (the message says so)
     */
    public static Profiler ensure(Path cache) throws IOException, InterruptedException {
        String version = System.getenv("ASYNC_PROFILER_VERSION");
        HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        if (version == null || version.isBlank()) {
            try {
                String meta = http.send(
                                HttpRequest.newBuilder(URI.create(MAVEN + "maven-metadata.xml"))
                                        .build(),
                                HttpResponse.BodyHandlers.ofString())
                        .body();
                Matcher m = Pattern.compile("<release>([^<]+)</release>").matcher(meta);
                version = m.find() ? m.group(1) : null;
            } catch (IOException e) {
                version = null;
            }
            if (version == null) {
                version = cachedVersion(cache);
            }
            if (version == null) {
                throw new IOException("could not look up async-profiler's version on Maven Central (" + MAVEN
                        + ") and none is cached in " + cache + "; rerun with network access, or with --no-profile");
            }
        }
        Path dir = cache.resolve("async-profiler-" + version);
        Path lib = dir.resolve("libasyncProfiler.so");
        if (!Files.exists(lib)) {
            Files.createDirectories(dir);
            URI jar = URI.create(MAVEN + version + "/async-profiler-" + version + ".jar");
            System.err.println("bench: fetching tools.profiler:async-profiler:" + version + " from Maven Central");
            HttpResponse<InputStream> r =
                    http.send(HttpRequest.newBuilder(jar).build(), HttpResponse.BodyHandlers.ofInputStream());
            if (r.statusCode() != 200) {
                throw new IOException("download of " + jar + " answered " + r.statusCode());
            }
            try (ZipInputStream zip = new ZipInputStream(r.body())) {
                ZipEntry e;
                while ((e = zip.getNextEntry()) != null) {
                    if (e.getName().equals("linux-x64/libasyncProfiler.so")) {
                        Path tmp = dir.resolve("libasyncProfiler.so.tmp");
                        Files.copy(zip, tmp, StandardCopyOption.REPLACE_EXISTING);
                        Files.move(tmp, lib, StandardCopyOption.ATOMIC_MOVE);
                    }
                }
            }
            if (!Files.exists(lib)) {
                throw new IOException("no linux-x64/libasyncProfiler.so in " + jar);
            }
        }
        return new Profiler(lib, version);
    }

    private static String cachedVersion(Path cache) throws IOException {
        if (!Files.isDirectory(cache)) {
            return null;
        }
        try (var s = Files.list(cache)) {
            return s.map(p -> p.getFileName().toString())
                    .filter(n -> n.startsWith("async-profiler-"))
                    .filter(n -> Files.exists(cache.resolve(n).resolve("libasyncProfiler.so")))
                    .map(n -> n.substring("async-profiler-".length()))
                    .sorted()
                    .reduce((a, b) -> b)
                    .orElse(null);
        }
    }

    /** async-profiler's version, e.g. {@code 4.6}. */
    public String version() {
        return version;
    }

    /** The CPU event in use: {@code cpu} (perf events), or {@code itimer} when the kernel refused perf events. */
    public String cpuEvent() {
        return cpuEvent;
    }

    /**
     * Starts profiling {@code kind} ({@code cpu}, {@code alloc} or {@code lock}) in the JVM {@code pid}.
     * For {@code cpu}, falls back to {@code itimer} when perf events are refused.
     *
     * @throws IOException when async-profiler refuses to start (the message holds jcmd's output)
     */
    public void start(long pid, String kind) throws IOException, InterruptedException {
        if (kind.equals("cpu")) {
            try {
                command(pid, "start,event=" + cpuEvent + ",interval=1ms");
                return;
            } catch (IOException e) {
                if (cpuEvent.equals("itimer")) {
                    throw e;
                }
                System.err.println("bench: perf events refused for the cpu profile; using event=itimer");
                cpuEvent = "itimer";
            }
            command(pid, "start,event=itimer,interval=1ms");
        } else {
            command(pid, "start,event=" + kind);
        }
    }

    /**
     * Stops profiling in {@code pid}, writing {@code <base>.txt} (flat top frames and traces) and
     * {@code <base>.html} (flame graph).
     */
    public void stop(long pid, Path base, String title) throws IOException, InterruptedException {
        command(pid, "dump,file=" + base + ".txt,flat=10,traces=3");
        command(pid, "stop,file=" + base + ".html,title=" + title.replace(',', ' '));
    }

    private void command(long pid, String command) throws IOException, InterruptedException {
        // The command goes in double quotes: jcmd's own parser would otherwise split it at '='.
        String out = Jcmd.of(pid).run("JVMTI.agent_load", List.of(lib.toString(), "\"" + command + "\""));
        if (!out.contains("return code: 0")) {
            throw new IOException("async-profiler '" + command + "' in pid " + pid + " failed: " + out.strip());
        }
    }

    /**
     * The flat profile (top frames by self samples or bytes) from a text file written by {@link #stop}: the
     * header line and the frames under it, at most {@code limit}.
     */
    public static List<String> topFrames(List<String> profileText, int limit) {
        List<String> out = new ArrayList<>();
        boolean in = false;
        for (String line : profileText) {
            if (!in && line.matches("\\s*(ns|bytes|samples)\\s+percent\\s+samples\\s+top\\s*")) {
                in = true;
                out.add(line);
                continue;
            }
            if (in) {
                if (line.isBlank() || out.size() >= limit + 2) { // header, dashes, frames
                    break;
                }
                out.add(line);
            }
        }
        return out;
    }
}
