package io.ringbase.observe;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.core.ConditionTimeoutException;

/**
 * Debian's headless Chromium driven over its DevTools protocol (a WebSocket, JDK client): navigate,
 * wait for the load event, evaluate JavaScript in the page, take a screenshot. Installs nothing: the
 * test that uses it says {@code @NeedsCommands("chromium|chromium-browser")}, and {@code .ci/run} installs
 * Debian's {@code chromium} package.
 * Starts a browser with a fresh profile and closes it (killing it, and deleting nothing else) on
 * {@link #close()}.
 */
final class HeadlessChromium implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    static final Duration DEADLINE = Duration.ofSeconds(30);

    private final Process process;
    private final WebSocket socket;
    private final AtomicInteger ids = new AtomicInteger();
    private final Map<Integer, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();
    private final LinkedBlockingQueue<String> events = new LinkedBlockingQueue<>();

    private HeadlessChromium(Process process, WebSocket socket) {
        this.process = process;
        this.socket = socket;
    }

    /** The chromium binary on the {@code PATH}. */
    static String binary() {
        for (String name : List.of("chromium", "chromium-browser")) {
            for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
                if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, name))) {
                    return Path.of(dir, name).toString();
                }
            }
        }
        throw new IllegalStateException(
                "no chromium or chromium-browser on the PATH: install Debian's chromium " + "(.ci/run does)");
    }

    /** Starts a headless browser with a fresh profile under {@code profileDir} and attaches to its page. */
    static HeadlessChromium start(Path profileDir) throws Exception {
        Files.createDirectories(profileDir);
        List<String> cmd = new ArrayList<>(List.of(
                binary(),
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-dev-shm-usage",
                "--user-data-dir=" + profileDir,
                "--remote-debugging-port=0",
                "--remote-allow-origins=*",
                "--window-size=1280,800",
                "about:blank"));
        Process p = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(profileDir.resolve("chromium.log").toFile())
                .start();
        try {
            Path portFile = profileDir.resolve("DevToolsActivePort");
            long end = System.nanoTime() + DEADLINE.toNanos(); // for both waits together
            try {
                await().atMost(DEADLINE)
                        .pollInterval(Duration.ofMillis(50))
                        .until(() -> !p.isAlive()
                                || (Files.exists(portFile)
                                        && Files.readAllLines(portFile).size() >= 2));
            } catch (ConditionTimeoutException e) {
                // reported below, with chromium's log
            }
            if (!p.isAlive()
                    || !Files.exists(portFile)
                    || Files.readAllLines(portFile).size() < 2) {
                throw new IllegalStateException(
                        "chromium did not start; its log:\n" + Files.readString(profileDir.resolve("chromium.log")));
            }
            int port = Integer.parseInt(Files.readAllLines(portFile).getFirst().strip());
            HttpClient http = HttpClient.newHttpClient();
            String[] list = {null};
            String pageSocket;
            try {
                Duration left = Duration.ofNanos(Math.max(end - System.nanoTime(), 100_000_000L));
                pageSocket = await().atMost(left)
                        .pollInterval(Duration.ofMillis(50))
                        .until(
                                () -> {
                                    list[0] = http.send(
                                                    HttpRequest.newBuilder(URI.create(
                                                                    "http://127.0.0.1:" + port + "/json/list"))
                                                            .build(),
                                                    HttpResponse.BodyHandlers.ofString())
                                            .body();
                                    String page = null;
                                    for (JsonNode target : JSON.readTree(list[0])) {
                                        if ("page".equals(target.path("type").textValue())) {
                                            page = target.path("webSocketDebuggerUrl")
                                                    .textValue();
                                        }
                                    }
                                    return page;
                                },
                                Objects::nonNull);
            } catch (ConditionTimeoutException e) {
                throw new IllegalStateException("chromium has no page target: " + list[0], e);
            }
            HeadlessChromium[] self = new HeadlessChromium[1];
            StringBuilder partial = new StringBuilder();
            WebSocket ws = http.newWebSocketBuilder()
                    .buildAsync(URI.create(pageSocket), new WebSocket.Listener() {
                        @Override
                        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
                            partial.append(data);
                            if (last) {
                                String message = partial.toString();
                                partial.setLength(0);
                                self[0].onMessage(message);
                            }
                            webSocket.request(1);
                            return null;
                        }
                    })
                    .get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
            self[0] = new HeadlessChromium(p, ws);
            self[0].call("Page.enable", JSON.createObjectNode());
            return self[0];
        } catch (Exception | Error e) {
            p.destroyForcibly();
            throw e;
        }
    }

    private void onMessage(String message) {
        JsonNode m;
        try {
            m = JSON.readTree(message);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("DevTools sent bad JSON: " + message, e);
        }
        if (m.path("id").isNumber()) {
            CompletableFuture<JsonNode> f = pending.remove(m.path("id").intValue());
            if (f != null) {
                if (m.hasNonNull("error")) {
                    f.completeExceptionally(new IllegalStateException("DevTools error: " + message));
                } else {
                    f.complete(m.path("result"));
                }
            }
        } else {
            events.add(m.path("method").textValue());
        }
    }

    /** Sends one DevTools command with {@code params} (a JSON object) and returns its result. */
    JsonNode call(String method, ObjectNode params) throws Exception {
        int id = ids.incrementAndGet();
        CompletableFuture<JsonNode> f = new CompletableFuture<>();
        pending.put(id, f);
        ObjectNode msg = JSON.createObjectNode().put("id", id).put("method", method);
        msg.set("params", params);
        socket.sendText(msg.toString(), true).get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        return f.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
    }

    /** Loads {@code url} and waits for its load event. */
    void navigate(String url) throws Exception {
        events.clear();
        call("Page.navigate", JSON.createObjectNode().put("url", url));
        long end = System.nanoTime() + DEADLINE.toNanos();
        while (true) {
            String event = events.poll(100, TimeUnit.MILLISECONDS);
            if ("Page.loadEventFired".equals(event)) {
                return;
            }
            if (System.nanoTime() > end) {
                throw new IllegalStateException("no load event for " + url);
            }
        }
    }

    /** Evaluates {@code expression} in the page and returns its value as Jackson reads it into Java: String, Integer or Double, Boolean, List, Map. */
    Object evaluate(String expression) throws Exception {
        JsonNode result = call(
                "Runtime.evaluate",
                JSON.createObjectNode().put("expression", expression).put("returnByValue", true));
        if (result.hasNonNull("exceptionDetails")) {
            throw new IllegalStateException("page script failed: " + result.get("exceptionDetails"));
        }
        return JSON.treeToValue(result.path("result").path("value"), Object.class);
    }

    /** Saves a PNG screenshot of the page to {@code file}. */
    void screenshot(Path file) throws Exception {
        JsonNode result = call("Page.captureScreenshot", JSON.createObjectNode().put("format", "png"));
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.write(file, Base64.getDecoder().decode(result.path("data").textValue()));
    }

    @Override
    public void close() {
        socket.abort();
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
