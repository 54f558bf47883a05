package io.ringbase.node;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The public HTTP API of one node, as a client sees it: {@code java.net.http.HttpClient} for the
 * entity endpoint, and a raw socket for range scans so that every HTTP chunk (one entry each) is seen
 * as sent, streamed rather than buffered.
 */
final class NodeClient {

    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

    private final int port;
    private final HttpClient http;

    NodeClient(int port) {
        this.port = port;
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
    }

    NodeClient(NodeProcess node) {
        this(node.port());
    }

    HttpClient http() {
        return http;
    }

    /** A GET answer: the status and the body bytes. */
    record Answer(int status, byte[] body) {}

    /** One entry of a range scan. */
    record Entry(String key, byte[] value) {}

    /** Receives the entries of a streamed range scan, in order. */
    interface EntryVisitor {
        void visit(String key, byte[] value) throws IOException;
    }

    static String enc(String key) {
        return URLEncoder.encode(key, StandardCharsets.UTF_8);
    }

    URI entity(String key) {
        return URI.create("http://127.0.0.1:" + port + "/v0/entity?id=" + enc(key));
    }

    HttpRequest putRequest(String key, byte[] value) {
        return HttpRequest.newBuilder(entity(key))
                .timeout(REQUEST_TIMEOUT)
                .PUT(HttpRequest.BodyPublishers.ofByteArray(value))
                .build();
    }

    /** PUT; returns the status (201 when stored). */
    int put(String key, byte[] value) throws IOException, InterruptedException {
        return http.send(putRequest(key, value), HttpResponse.BodyHandlers.discarding())
                .statusCode();
    }

    /** DELETE; returns the status (202 when the tombstone is written). */
    int delete(String key) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(entity(key))
                .timeout(REQUEST_TIMEOUT)
                .DELETE()
                .build();
        return http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    Answer get(String key) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(entity(key))
                .timeout(REQUEST_TIMEOUT)
                .GET()
                .build();
        HttpResponse<byte[]> response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
        return new Answer(response.statusCode(), response.body());
    }

    /** The whole range {@code [start, end)} ({@code end} null: to the last key), in memory. */
    List<Entry> range(String start, String end) throws IOException {
        List<Entry> entries = new ArrayList<>();
        scan(start, end, (k, v) -> entries.add(new Entry(k, v)));
        return entries;
    }

    /**
     * Streams the range {@code [start, end)} over a raw HTTP/1.1 connection, one visit per chunk.
     *
     * @return how many entries were visited
     * @throws IOException on a status other than 200, a response that is not chunked, a chunk without
     *     the key separator, or a stream that ends without the terminating chunk
     */
    long scan(String start, String end, EntryVisitor visitor) throws IOException {
        String target = "/v0/entities?start=" + enc(start) + (end == null ? "" : "&end=" + enc(end));
        try (Socket socket = new Socket()) {
            socket.setSoTimeout((int) REQUEST_TIMEOUT.toMillis());
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            OutputStream out = socket.getOutputStream();
            out.write(("GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = new BufferedInputStream(socket.getInputStream(), 1 << 16);
            String status = line(in);
            boolean chunked = false;
            for (String h = line(in); !h.isEmpty(); h = line(in)) {
                int colon = h.indexOf(':');
                if (colon > 0
                        && h.substring(0, colon).trim().equalsIgnoreCase("transfer-encoding")
                        && h.substring(colon + 1).trim().equalsIgnoreCase("chunked")) {
                    chunked = true;
                }
            }
            if (!status.startsWith("HTTP/1.1 200")) {
                throw new IOException("range " + target + " answered '" + status + "'");
            }
            if (!chunked) {
                throw new IOException("range " + target + " answered without Transfer-Encoding: chunked");
            }
            long count = 0;
            while (true) {
                String sizeLine = line(in);
                int semicolon = sizeLine.indexOf(';');
                int size = Integer.parseInt((semicolon < 0 ? sizeLine : sizeLine.substring(0, semicolon)).trim(), 16);
                if (size == 0) {
                    for (String trailer = line(in); !trailer.isEmpty(); trailer = line(in)) {
                        // trailers carry nothing for us
                    }
                    return count;
                }
                byte[] chunk = in.readNBytes(size);
                if (chunk.length < size) {
                    throw new EOFException("range " + target + " ended inside chunk " + count);
                }
                if (in.read() != '\r' || in.read() != '\n') {
                    throw new IOException("range " + target + ": chunk " + count + " not followed by CRLF");
                }
                int nl = indexOf(chunk, (byte) '\n');
                if (nl < 0) {
                    throw new IOException("range " + target + ": chunk " + count + " has no key separator");
                }
                byte[] value = java.util.Arrays.copyOfRange(chunk, nl + 1, chunk.length);
                visitor.visit(new String(chunk, 0, nl, StandardCharsets.UTF_8), value);
                count++;
            }
        }
    }

    private static int indexOf(byte[] bytes, byte b) {
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == b) {
                return i;
            }
        }
        return -1;
    }

    /** One CRLF-terminated line, without the CRLF. */
    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream(64);
        while (true) {
            int b = in.read();
            if (b < 0) {
                throw new EOFException("connection closed mid-response (after '" + buf + "')");
            }
            if (b == '\n') {
                byte[] bytes = buf.toByteArray();
                int len = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
                return new String(bytes, 0, len, StandardCharsets.ISO_8859_1);
            }
            buf.write(b);
        }
    }
}
