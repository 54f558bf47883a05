package io.ringbase.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.testing.IntegrationTest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cluster-wide range read in pages of {@code limit} entries through every node in turn, each page
 * starting at the previous page's {@code Ringbase-Next-Start} trailer, returns every key exactly once.
 */
@IntegrationTest
class ClusterRangePagingTest {

    static final int KEYS = 20_000;
    static final int LIMIT = 1_000;

    @TempDir
    Path tmp;

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void pagesThroughAnyNodeReturnEveryKeyExactlyOnce() throws Exception {
        try (LocalCluster c = new LocalCluster(tmp, 3);
                HttpClient client = HttpClient.newBuilder()
                        .version(HttpClient.Version.HTTP_1_1)
                        .build()) {
            write(c, client);
            List<String> keys = new ArrayList<>();
            String start = "key%2F";
            int page = 0;
            while (start != null) {
                Page p = read(c.port(page % 3), "/v0/entities?start=" + start + "&end=key0&limit=" + LIMIT);
                assertThat(p.keys().size()).as("page %d", page).isLessThanOrEqualTo(LIMIT);
                keys.addAll(p.keys());
                start = p.nextStart();
                page++;
            }
            assertThat(keys).hasSize(KEYS).doesNotHaveDuplicates().isSorted();
            assertThat(page).isBetween(KEYS / LIMIT, KEYS / LIMIT + 1); // a full last page is followed by an empty one
        }
    }

    private static String key(int i) {
        return "key/%06d".formatted(i);
    }

    /** Writes the keys through the three nodes, 32 requests in flight. */
    private static void write(LocalCluster c, HttpClient client) throws Exception {
        Semaphore inFlight = new Semaphore(32);
        List<CompletableFuture<HttpResponse<Void>>> all = new ArrayList<>();
        for (int i = 0; i < KEYS; i++) {
            if (!inFlight.tryAcquire(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("no PUT answered within 60 s");
            }
            String id = key(i).replace("/", "%2F");
            HttpRequest put = HttpRequest.newBuilder(URI.create(c.url(i % 3) + "/v0/entity?id=" + id))
                    .timeout(Duration.ofSeconds(30))
                    .PUT(HttpRequest.BodyPublishers.ofString("v" + i))
                    .build();
            all.add(client.sendAsync(put, HttpResponse.BodyHandlers.discarding())
                    .whenComplete((r, e) -> inFlight.release()));
        }
        for (CompletableFuture<HttpResponse<Void>> f : all) {
            assertThat(f.get(60, TimeUnit.SECONDS).statusCode()).isEqualTo(201);
        }
    }

    private record Page(List<String> keys, @Nullable String nextStart) {}

    /** One range response over a raw socket, to see its chunks and trailer (java.net.http hides trailers). */
    private static Page read(int port, String target) throws IOException {
        try (Socket s = new Socket()) {
            s.setSoTimeout(30_000);
            s.connect(new InetSocketAddress("127.0.0.1", port));
            OutputStream out = s.getOutputStream();
            out.write(("GET " + target + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = s.getInputStream();
            String status = line(in);
            assertThat(status).startsWith("HTTP/1.1 200");
            Set<String> headers = new HashSet<>();
            for (String h = line(in); !h.isEmpty(); h = line(in)) {
                headers.add(h.toLowerCase(java.util.Locale.ROOT));
            }
            assertThat(headers).contains("transfer-encoding: chunked", "trailer: ringbase-next-start");
            List<String> keys = new ArrayList<>();
            while (true) {
                int size = Integer.parseInt(line(in), 16);
                if (size == 0) {
                    break;
                }
                String chunk = new String(in.readNBytes(size), StandardCharsets.UTF_8);
                keys.add(chunk.substring(0, chunk.indexOf('\n')));
                assertThat(line(in)).isEmpty();
            }
            String next = null;
            for (String t = line(in); !t.isEmpty(); t = line(in)) {
                int colon = t.indexOf(':');
                if (t.substring(0, colon).trim().equalsIgnoreCase("ringbase-next-start")) {
                    next = t.substring(colon + 1).trim();
                }
            }
            return new Page(keys, next);
        }
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c == -1) {
                throw new IOException("connection closed mid-response");
            }
            if (c != '\r') {
                b.write(c);
            }
        }
        return b.toString(StandardCharsets.ISO_8859_1);
    }
}
