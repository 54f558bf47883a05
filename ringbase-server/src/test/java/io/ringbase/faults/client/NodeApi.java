package io.ringbase.faults.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ringbase.faults.history.Op.Outcome;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One client's view of one node's public API. Every call returns an {@link Answer} whose outcome says
 * what the client may assume: a status the API documents as done is OK; a 504 "not enough replicas
 * reachable", a refused connection, a 4xx or a 503 (nothing was started) is FAIL; a 504 "timeout", a 500, a
 * client timeout or a broken connection is UNKNOWN for writes (the write may have landed).
 */
public final class NodeApi {

    /** How long a client waits for an answer before counting the operation as unknown. */
    static final Duration TIMEOUT = Duration.ofSeconds(4);

    private final String base;
    private final HttpClient http;

    public NodeApi(String baseUrl) {
        this.base = baseUrl;
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(1))
                .build();
    }

    /** A classified answer: the outcome, the value (reads), and the status or failure for people. */
    public record Answer(Outcome outcome, String value, String note) {}

    static String enc(String key) {
        return URLEncoder.encode(key, StandardCharsets.UTF_8);
    }

    public Answer put(String key, String value) {
        return send(
                HttpRequest.newBuilder(URI.create(base + "/v0/entity?id=" + enc(key)))
                        .PUT(HttpRequest.BodyPublishers.ofString(value, StandardCharsets.UTF_8)),
                201,
                true);
    }

    public Answer delete(String key) {
        return send(
                HttpRequest.newBuilder(URI.create(base + "/v0/entity?id=" + enc(key)))
                        .DELETE(),
                202,
                true);
    }

    /** A read's answer with the value's ETag ({@code null} for a 404 or a failure). */
    public record Tagged(Answer answer, String etag) {}

    /** As {@link #get}, with the ETag of the value read. */
    public Tagged getTagged(String key) {
        java.util.concurrent.atomic.AtomicReference<HttpResponse<String>> seen =
                new java.util.concurrent.atomic.AtomicReference<>();
        Answer a = send(
                HttpRequest.newBuilder(URI.create(base + "/v0/entity?id=" + enc(key)))
                        .GET(),
                200,
                false,
                seen);
        return new Tagged(
                a,
                seen.get() == null
                        ? null
                        : seen.get().headers().firstValue("etag").orElse(null));
    }

    /**
     * A compare-and-set: PUT {@code value} with {@code If-Match: etag}, or {@code If-None-Match: *} when
     * {@code etag} is null. A 412 is OK with the value {@code "412"} (refused: nothing written).
     */
    public Answer putIf(String key, String value, String etag) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + "/v0/entity?id=" + enc(key)))
                .PUT(HttpRequest.BodyPublishers.ofString(value, StandardCharsets.UTF_8));
        if (etag == null) {
            b.header("If-None-Match", "*");
        } else {
            b.header("If-Match", etag);
        }
        java.util.concurrent.atomic.AtomicReference<HttpResponse<String>> seen =
                new java.util.concurrent.atomic.AtomicReference<>();
        Answer a = send(b, 201, true, seen);
        if (seen.get() != null && seen.get().statusCode() == 412) {
            return new Answer(Outcome.OK, "412", "412");
        }
        return a;
    }

    /** A quorum read (the default ack/from); a 404 is OK with a {@code null} value. */
    public Answer get(String key) {
        return send(
                HttpRequest.newBuilder(URI.create(base + "/v0/entity?id=" + enc(key)))
                        .GET(),
                200,
                false);
    }

    /** Any request; {@code null} on a failure to get an answer. */
    public HttpResponse<String> raw(String method, String pathAndQuery) {
        return raw(method, pathAndQuery, Map.of());
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The node's JSON answer to {@code GET path}, or {@code null} if it did not answer 200 with JSON. */
    public JsonNode getJson(String path) {
        HttpResponse<String> r = raw("GET", path);
        if (r == null || r.statusCode() != 200) {
            return null;
        }
        try {
            return JSON.readTree(r.body());
        } catch (IOException e) {
            return null;
        }
    }

    /** Any request with extra header fields; {@code null} on a failure to get an answer. */
    public HttpResponse<String> raw(String method, String pathAndQuery, Map<String, String> headers) {
        try {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + pathAndQuery))
                    .timeout(Duration.ofSeconds(10))
                    .method(method, HttpRequest.BodyPublishers.noBody());
            headers.forEach(b::header);
            return http.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private Answer send(HttpRequest.Builder request, int okStatus, boolean write) {
        return send(request, okStatus, write, new java.util.concurrent.atomic.AtomicReference<>());
    }

    private Answer send(
            HttpRequest.Builder request,
            int okStatus,
            boolean write,
            java.util.concurrent.atomic.AtomicReference<HttpResponse<String>> seen) {
        HttpResponse<String> r;
        try {
            r = http.send(request.timeout(TIMEOUT).build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (HttpConnectTimeoutException e) {
            return new Answer(Outcome.FAIL, null, "connect timeout");
        } catch (ConnectException e) {
            return new Answer(Outcome.FAIL, null, "connection refused");
        } catch (HttpTimeoutException e) {
            return new Answer(write ? Outcome.UNKNOWN : Outcome.FAIL, null, "client timeout");
        } catch (IOException e) {
            return new Answer(write ? Outcome.UNKNOWN : Outcome.FAIL, null, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Answer(write ? Outcome.UNKNOWN : Outcome.FAIL, null, "interrupted");
        }
        seen.set(r);
        int status = r.statusCode();
        String note = status + " " + firstLine(r.body());
        if (status == okStatus) {
            return new Answer(Outcome.OK, write ? null : r.body(), Integer.toString(status));
        }
        if (!write && status == 404) {
            return new Answer(Outcome.OK, null, "404");
        }
        if (status == 504 && r.body().startsWith("not enough replicas reachable")) {
            return new Answer(Outcome.FAIL, null, note);
        }
        if ((status >= 400 && status < 500) || status == 503) {
            return new Answer(Outcome.FAIL, null, note);
        }
        return new Answer(write ? Outcome.UNKNOWN : Outcome.FAIL, null, note);
    }

    private static String firstLine(String body) {
        String s = body == null ? "" : body.strip();
        int nl = s.indexOf('\n');
        s = nl < 0 ? s : s.substring(0, nl);
        return s.length() > 120 ? s.substring(0, 120) : s;
    }

    /**
     * A range scan {@code [start, end)} through this node, read chunk by chunk over a raw socket (one HTTP
     * chunk per entry: {@code key \n value}).
     *
     * @throws IOException if the scan fails or its body is cut short (no terminating chunk)
     */
    public Map<String, String> scan(String start, String end) throws IOException {
        URI uri = URI.create(base);
        Map<String, String> out = new LinkedHashMap<>();
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), 2_000);
            s.setSoTimeout(30_000);
            OutputStream o = s.getOutputStream();
            o.write(("GET /v0/entities?start=" + enc(start) + "&end=" + enc(end) + " HTTP/1.1\r\nHost: x\r\n"
                            + "Connection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            o.flush();
            InputStream in = new BufferedInputStream(s.getInputStream());
            String status = line(in);
            if (!status.startsWith("HTTP/1.1 200")) {
                throw new IOException("scan answered " + status);
            }
            while (!line(in).isEmpty()) {
                // headers
            }
            while (true) {
                int size = Integer.parseInt(line(in).split(";")[0].strip(), 16);
                if (size == 0) {
                    return out;
                }
                byte[] chunk = in.readNBytes(size);
                if (chunk.length < size) {
                    throw new IOException("scan cut short inside a chunk");
                }
                line(in);
                String entry = new String(chunk, StandardCharsets.UTF_8);
                int nl = entry.indexOf('\n');
                out.put(entry.substring(0, nl), entry.substring(nl + 1));
            }
        }
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                throw new IOException("scan cut short");
            }
            if (c != '\r') {
                b.write(c);
            }
        }
        return b.toString(StandardCharsets.US_ASCII);
    }
}
