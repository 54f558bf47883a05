package io.ringbase.bench.ycsb;

import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.atomic.AtomicInteger;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * A YCSB binding for Ringbase's public HTTP API. A record is one value (encoded by {@link RecordCodec}) under
 * the key {@code <table>:<key>}; {@code update} reads the record, merges the fields and writes it back (two
 * requests); {@code scan} streams {@code GET /v0/entities} from the start key up to the end of the table.
 *
 * <p>Properties: {@code ringbase.urls} (comma-separated node URLs, default {@code http://127.0.0.1:8080}; each
 * client thread uses one, round robin), {@code ringbase.ack} and {@code ringbase.from} (added as
 * {@code &ack=&from=} when positive), {@code ringbase.timeout.ms} (per request, default 10000 ms).
 * Answers: 200/201/202 are {@link Status#OK}, 404 on read is {@link Status#NOT_FOUND}, anything else or an I/O
 * failure is {@link Status#ERROR}.
 */
public class RingbaseHttpDb extends DB {

    private static final HttpClient CLIENT = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    private static final AtomicInteger THREADS = new AtomicInteger();
    private static final AtomicInteger ERRORS = new AtomicInteger();
    /** Retries of a request after an I/O failure. */
    static final int RETRIES = 2;
    /** Failures printed to stderr at most. */
    static final int ERRORS_SHOWN = 10;

    private String base;
    private String replicas;
    private Duration timeout;

    @Override
    public void init() throws DBException {
        var p = getProperties();
        List<String> urls =
                List.of(p.getProperty("ringbase.urls", "http://127.0.0.1:8080").split(","));
        base = urls.get(Math.floorMod(THREADS.getAndIncrement(), urls.size()))
                .trim()
                .replaceAll("/$", "");
        int ack = Integer.parseInt(p.getProperty("ringbase.ack", "0"));
        int from = Integer.parseInt(p.getProperty("ringbase.from", "0"));
        replicas = ack > 0 ? "&ack=" + ack + "&from=" + from : "";
        timeout = Duration.ofMillis(Long.parseLong(p.getProperty("ringbase.timeout.ms", "10000")));
        if (!base.startsWith("http://")) {
            throw new DBException("ringbase.urls: not an http:// URL: " + base);
        }
    }

    private static String id(String table, String key) {
        return URLEncoder.encode(table + ":" + key, StandardCharsets.UTF_8);
    }

    private HttpRequest.Builder request(String pathAndQuery) {
        return HttpRequest.newBuilder(URI.create(base + pathAndQuery + replicas))
                .timeout(timeout);
    }

    @Override
    public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
        try {
            HttpRequest req = request("/v0/entity?id=" + id(table, key)).GET().build();
            HttpResponse<byte[]> r = send(req, HttpResponse.BodyHandlers.ofByteArray());
            if (r.statusCode() == 404) {
                return Status.NOT_FOUND;
            }
            if (r.statusCode() != 200) {
                return unexpected(req, r.statusCode());
            }
            put(RecordCodec.decode(new ByteArrayInputStream(r.body()), fields), result);
            return Status.OK;
        } catch (IOException e) {
            return Status.ERROR;
        }
    }

    @Override
    @SuppressWarnings("NonApiType") // YCSB's DB.scan signature
    public Status scan(
            String table,
            String startkey,
            int recordcount,
            Set<String> fields,
            Vector<HashMap<String, ByteIterator>> result) {
        String end = URLEncoder.encode(table + ";", StandardCharsets.UTF_8); // ';' follows ':': the end of the table
        try {
            HttpRequest req = request("/v0/entities?start=" + id(table, startkey) + "&end=" + end)
                    .GET()
                    .build();
            HttpResponse<InputStream> r = send(req, HttpResponse.BodyHandlers.ofInputStream());
            try (InputStream in = new BufferedInputStream(r.body())) {
                if (r.statusCode() != 200) {
                    return unexpected(req, r.statusCode());
                }
                // The chunks arrive de-chunked: key, '\n', record, key, '\n', record, ... (records are self-delimiting)
                for (int i = 0; i < recordcount; i++) {
                    if (!skipKey(in)) {
                        break;
                    }
                    HashMap<String, ByteIterator> row = new HashMap<>();
                    put(RecordCodec.decode(in, fields), row);
                    result.add(row);
                }
            }
            return Status.OK;
        } catch (IOException e) {
            return Status.ERROR;
        }
    }

    /** Reads a key up to its '\n'; false at the end of the stream. */
    private static boolean skipKey(InputStream in) throws IOException {
        ByteArrayOutputStream key = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != '\n') {
            if (b < 0) {
                if (key.size() == 0) {
                    return false;
                }
                throw new IOException("range stream ended inside a key");
            }
            key.write(b);
        }
        return true;
    }

    @Override
    public Status update(String table, String key, Map<String, ByteIterator> values) {
        Map<String, ByteIterator> current = new HashMap<>();
        Status read = read(table, key, null, current);
        if (Status.ERROR.equals(read)) {
            return read;
        }
        Map<String, byte[]> merged = new LinkedHashMap<>();
        current.forEach((k, v) -> merged.put(k, v.toArray()));
        values.forEach((k, v) -> merged.put(k, v.toArray()));
        return write(table, key, merged);
    }

    @Override
    public Status insert(String table, String key, Map<String, ByteIterator> values) {
        Map<String, byte[]> fields = new LinkedHashMap<>();
        values.forEach((k, v) -> fields.put(k, v.toArray()));
        return write(table, key, fields);
    }

    private Status write(String table, String key, Map<String, byte[]> fields) {
        try {
            HttpRequest req = request("/v0/entity?id=" + id(table, key))
                    .PUT(HttpRequest.BodyPublishers.ofByteArray(RecordCodec.encode(fields)))
                    .build();
            HttpResponse<Void> r = send(req, HttpResponse.BodyHandlers.discarding());
            return r.statusCode() == 201 ? Status.OK : unexpected(req, r.statusCode());
        } catch (IOException e) {
            return Status.ERROR;
        }
    }

    @Override
    public Status delete(String table, String key) {
        try {
            HttpRequest req =
                    request("/v0/entity?id=" + id(table, key)).DELETE().build();
            HttpResponse<Void> r = send(req, HttpResponse.BodyHandlers.discarding());
            return r.statusCode() == 202 ? Status.OK : unexpected(req, r.statusCode());
        } catch (IOException e) {
            return Status.ERROR;
        }
    }

    /**
     * Sends one request, retrying up to {@value #RETRIES} times on an I/O failure (every request here is
     * idempotent; the JDK client can lose the race with a keep-alive connection the node closed). The first
     * {@value #ERRORS_SHOWN} failures are printed to stderr with a {@code RingbaseHttpDb:} prefix.
     */
    private static <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler)
            throws IOException {
        IOException last = null;
        for (int attempt = 0; attempt <= RETRIES; attempt++) {
            try {
                return CLIENT.send(request, handler);
            } catch (IOException e) {
                last = e;
                if (ERRORS.incrementAndGet() <= ERRORS_SHOWN) {
                    System.err.println("RingbaseHttpDb: " + request.method() + " " + request.uri() + " (attempt "
                            + (attempt + 1) + "): " + e);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
        }
        throw last;
    }

    /** Unexpected statuses, also printed (at most {@value #ERRORS_SHOWN} lines in all). */
    private static Status unexpected(HttpRequest request, int status) {
        if (ERRORS.incrementAndGet() <= ERRORS_SHOWN) {
            System.err.println("RingbaseHttpDb: " + request.method() + " " + request.uri() + " answered " + status);
        }
        return Status.ERROR;
    }

    private static void put(Map<String, byte[]> fields, Map<String, ByteIterator> into) {
        fields.forEach((k, v) -> into.put(k, new ByteArrayByteIterator(v)));
    }
}
