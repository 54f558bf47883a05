package io.ringbase.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.ringbase.testing.IntegrationTest;
import io.ringbase.testing.NeedsCommands;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * rategen compiled from the jar's source and run against a small HTTP server on loopback: PUT bodies arrive
 * whole, each request gets a new key, fixed-length and chunked answers (larger than rategen's 64 KiB read
 * buffer) are counted by status, and the records hold every answer.
 */
@IntegrationTest
@NeedsCommands("cc") // rategen is compiled from its C source; .ci/run installs gcc
class RategenDriverTest {

    private static final int BIG_BODY = 200_000;

    @TempDir
    Path dir;

    private HttpServer server;
    private ExecutorService handlers;
    private String base;
    private final Set<String> keys = ConcurrentHashMap.newKeySet();
    private final AtomicLong goodBodies = new AtomicLong();
    private final AtomicLong badBodies = new AtomicLong();

    @BeforeEach
    void startServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        byte[] value = value();
        server.createContext("/v0/entity", ex -> {
            byte[] got = ex.getRequestBody().readAllBytes();
            (Arrays.equals(got, value) ? goodBodies : badBodies).incrementAndGet();
            keys.add(ex.getRequestURI().getQuery());
            ex.sendResponseHeaders(201, -1);
            ex.close();
        });
        server.createContext("/v0/entities", ex -> {
            ex.sendResponseHeaders(200, 0); // chunked
            try (OutputStream out = ex.getResponseBody()) {
                byte[] piece = new byte[5_000];
                Arrays.fill(piece, (byte) 'x');
                for (int sent = 0; sent < BIG_BODY; sent += piece.length) {
                    out.write(piece);
                    out.flush();
                }
            }
        });
        server.createContext("/missing", ex -> {
            byte[] msg = "no such key".getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(404, msg.length);
            ex.getResponseBody().write(msg);
            ex.close();
        });
        handlers = Executors.newFixedThreadPool(4);
        server.setExecutor(handlers);
        server.start();
        base = "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @AfterEach
    void stopServer() {
        server.stop(0);
        handlers.shutdownNow();
    }

    private static byte[] value() {
        byte[] v = new byte[100];
        for (int i = 0; i < v.length; i++) {
            v[i] = (byte) ('a' + i % 26);
        }
        return v;
    }

    private RategenDriver driver() throws Exception {
        return new RategenDriver(RategenInstaller.ensure(dir.resolve("cache")), -1, dir);
    }

    @Test
    void putsOfNewKeysArriveWholeAndAreAllCounted() throws Exception {
        Path body = Files.write(dir.resolve("value.bin"), value());
        LoadSpec put =
                new LoadSpec("PUT", KeySpace.putUrl(base, "&ack=1&from=1"), LoadSpec.UrlSource.NEW_KEYS, body, 200, 4);

        LoadResult r = driver().run(List.of(put), 2);

        // a request still due at the schedule's end on a busy connection is not sent: nearly all answered
        assertThat(r.answered()).isBetween(396L, 400L);
        assertThat(r.answered() + r.noAnswer()).isEqualTo(400);
        assertThat(r.statuses()).containsEntry(201, r.answered());
        assertThat(goodBodies.get()).isEqualTo(r.answered());
        assertThat(badBodies.get()).isZero();
        assertThat(keys).allMatch(q -> q.matches("id=u[0-9]{12}&ack=1&from=1"));
        assertThat(keys.size())
                .as("distinct keys of about 400 random 12-digit ones")
                .isGreaterThan(390);
        assertThat(r.perSecondUs()[0].getTotalCount() + r.perSecondUs()[1].getTotalCount())
                .isEqualTo(r.answered());
        assertThat(r.operations()).containsOnlyKeys("PUT");
    }

    @Test
    void urlFileAnswersChunkedAndFixedAreCountedByStatus() throws Exception {
        Path urls = Files.write(
                dir.resolve("urls.txt"), List.of(base + "/v0/entities?start=k0&end=k9", base + "/missing?id=1"));
        LoadSpec get = new LoadSpec("GET", urls.toString(), LoadSpec.UrlSource.FILE, null, 50, 4);

        LoadResult r = driver().run(List.of(get), 2);

        // a request still due at the schedule's end on a busy connection is not sent: nearly all answered
        assertThat(r.answered()).isBetween(96L, 100L);
        assertThat(r.answered() + r.noAnswer()).isEqualTo(100);
        assertThat(r.statuses().keySet()).contains(200, 404).isSubsetOf(200, 404, LoadResult.NO_ANSWER);
        assertThat(r.statuses().get(200) + r.statuses().get(404)).isEqualTo(r.answered());
        assertThat(r.statuses().get(200)).as("random draws of two URLs").isBetween(20L, 80L);
    }

    @Test
    void requestsAServerTooSlowLeftUnsentCountAsNoAnswer() throws Exception {
        server.createContext("/slow", ex -> {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            ex.sendResponseHeaders(200, -1);
            ex.close();
        });
        // one connection, 100 requests due in 1 s, 50 ms each: about 20 answered, the rest never sent
        LoadSpec get = new LoadSpec("GET", base + "/slow?id={key}", LoadSpec.UrlSource.NEW_KEYS, null, 100, 1);

        LoadResult r = driver().run(List.of(get), 1);

        assertThat(r.answered()).isBetween(10L, 25L);
        assertThat(r.answered() + r.noAnswer()).isEqualTo(100);
        assertThat(r.unsent().get()).as("no error: the rest were never sent").isEqualTo(r.noAnswer());
        assertThat(r.percentileMs(100))
                .as("the last answered waited behind the backlog")
                .isGreaterThan(400);
    }

    @Test
    void aRefusedConnectionFailsTheRunWithRategensMessage() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        LoadSpec put = new LoadSpec(
                "PUT",
                "http://127.0.0.1:" + closedPort + "/v0/entity?id={key}",
                LoadSpec.UrlSource.NEW_KEYS,
                null,
                100,
                2);
        RategenDriver driver = driver();
        // a refused connect either fails rategen at once or leaves every request unanswered
        try {
            LoadResult r = driver.run(List.of(put), 1);
            assertThat(r.answered()).isZero();
            assertThat(r.noAnswer()).isEqualTo(100);
        } catch (IOException e) {
            assertThat(e).hasMessageContaining("rategen exited with").hasMessageContaining("onnection refused");
        }
    }

    @Test
    void recordsAreReadByTheirLayout() throws Exception {
        ByteBuffer b = ByteBuffer.allocate(3 * RategenDriver.RECORD_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0).putInt(150).putShort((short) 201).putShort((short) 0);
        b.putInt(1_500_000).putInt(0xFFFF_FFF0).putShort((short) 503).putShort((short) 0);
        b.putInt(2_999_999).putInt(2_000).putShort((short) 201).putShort((short) 0);
        Path file = Files.write(dir.resolve("r.bin"), b.array());
        LoadResult r = LoadResult.empty(3);

        assertThat(RategenDriver.readRecords(file, r)).isEqualTo(3);

        assertThat(r.statuses()).isEqualTo(Map.of(201, 2L, 503, 1L));
        assertThat(r.perSecondUs()[0].getTotalCount()).isEqualTo(1);
        assertThat(r.perSecondUs()[1].getMaxValue()).as("clamped").isGreaterThanOrEqualTo(LoadResult.HIGHEST_US);
        assertThat(r.perSecondUs()[2].getTotalCount()).isEqualTo(1);

        Files.write(file, Arrays.copyOf(b.array(), 30));
        assertThatThrownBy(() -> RategenDriver.readRecords(file, LoadResult.empty(3)))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("ends inside a record");
        assertThat(RategenDriver.slots(
                        "RESULT rate=1.0 sent=3 ok=3 p50=1 errors=0 slots=40000 unsent=0\nSTATUS 201=3\n"))
                .isEqualTo(40_000);
        assertThatThrownBy(() -> RategenDriver.slots("rategen: usage")).isInstanceOf(IOException.class);
        assertThat(RategenDriver.unsent("RESULT rate=1.0 sent=3 ok=3 p50=1 errors=0 slots=10 unsent=7\nSTATUS 201=3\n"))
                .isEqualTo(7);
        assertThat(RategenDriver.unsent("rategen: usage")).isZero();
    }
}
