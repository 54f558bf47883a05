package io.ringbase.node;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.IntFunction;

/**
 * Bulk PUTs over one keep-alive HTTP/1.1 connection with pipelining (http-api.md: responses come back
 * in request order): sends a batch of requests in one write, then reads their responses. A 503 is
 * retried after its {@code Retry-After}; any other answer but 201 fails the load.
 */
final class PipelinedPuts implements AutoCloseable {

    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;
    private final String host;

    PipelinedPuts(int port) throws IOException {
        socket = new Socket();
        socket.setSoTimeout(60_000);
        socket.setTcpNoDelay(true);
        socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
        out = new BufferedOutputStream(socket.getOutputStream(), 1 << 16);
        in = new BufferedInputStream(socket.getInputStream(), 1 << 16);
        host = "Host: 127.0.0.1:" + port + "\r\n";
    }

    /**
     * PUTs {@code value.apply(i)} under {@code key.apply(i)} for every {@code i} in {@code [from, to)},
     * {@code batch} requests in flight at a time, until each was answered 201.
     *
     * @return how many 503 answers were retried
     * @throws IOException on any other status, or if the connection fails
     */
    long putAll(int from, int to, int batch, IntFunction<String> key, IntFunction<byte[]> value)
            throws IOException, InterruptedException {
        ArrayDeque<Integer> retry = new ArrayDeque<>();
        long retried = 0;
        int next = from;
        List<Integer> sent = new ArrayList<>(batch);
        while (next < to || !retry.isEmpty()) {
            sent.clear();
            while (sent.size() < batch && (!retry.isEmpty() || next < to)) {
                int i = retry.isEmpty() ? next++ : retry.poll();
                byte[] v = value.apply(i);
                out.write(("PUT /v0/entity?id=" + NodeClient.enc(key.apply(i)) + " HTTP/1.1\r\n" + host
                                + "Content-Length: " + v.length + "\r\n\r\n")
                        .getBytes(StandardCharsets.ISO_8859_1));
                out.write(v);
                sent.add(i);
            }
            out.flush();
            long retryAfterMs = 0;
            for (int i : sent) {
                int status = readResponse();
                if (status == 503) {
                    retry.add(i);
                    retried++;
                    retryAfterMs = 1_000;
                } else if (status != 201) {
                    throw new IOException("PUT " + key.apply(i) + " answered " + status);
                }
            }
            if (retryAfterMs > 0) {
                Thread.sleep(retryAfterMs); // the node asked for it (Retry-After: 1)
            }
        }
        return retried;
    }

    /** Reads one response with a Content-Length body; returns its status. */
    private int readResponse() throws IOException {
        String status = line();
        long length = 0;
        for (String h = line(); !h.isEmpty(); h = line()) {
            int colon = h.indexOf(':');
            String name = h.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            String v = h.substring(colon + 1).trim();
            if (name.equals("content-length")) {
                length = Long.parseLong(v);
            } else if (name.equals("connection") && v.equalsIgnoreCase("close")) {
                throw new IOException("node closed the connection: " + status);
            } else if (name.equals("transfer-encoding")) {
                throw new IOException("unexpected Transfer-Encoding on a PUT answer: " + status);
            }
        }
        in.skipNBytes(length);
        return Integer.parseInt(status.split(" ", 3)[1]);
    }

    private String line() throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream(64);
        for (int b = in.read(); b != '\n'; b = in.read()) {
            if (b < 0) {
                throw new EOFException("connection closed mid-response");
            }
            if (b != '\r') {
                buf.write(b);
            }
        }
        return buf.toString(StandardCharsets.ISO_8859_1);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
