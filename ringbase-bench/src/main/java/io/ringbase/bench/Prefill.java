package io.ringbase.bench;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Writes keys {@code 0..n-1} ({@link KeySpace#key}) once each, in order, over {@code connections} keep-alive
 * HTTP/1.1 connections (plain sockets, one request in flight per connection), and draws a progress bar.
 * Every PUT must be answered 201.
 */
public final class Prefill {

    private Prefill() {
    }

    /**
     * Prefills the target. Connections are spread over the nodes in {@code urls}.
     *
     * @param valueSize bytes per value
     * @return the prefill's rate in keys per second
     * @throws IOException when a connection fails or a PUT is not answered 201 (the message names key and status)
     */
    public static double run(List<URI> urls, long n, int valueSize, int connections, String replicaQuery,
            PrintStream progress) throws IOException, InterruptedException {
        byte[] value = new byte[valueSize];
        for (int i = 0; i < valueSize; i++) {
            value[i] = (byte) ('a' + i % 26);
        }
        AtomicLong next = new AtomicLong();
        AtomicLong done = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long started = System.nanoTime();
        Thread[] workers = new Thread[connections];
        for (int c = 0; c < connections; c++) {
            URI url = urls.get(c % urls.size());
            workers[c] = Thread.ofPlatform().name("prefill-" + c).start(() -> {
                try (Socket s = new Socket(url.getHost(), url.getPort())) {
                    s.setTcpNoDelay(true);
                    OutputStream out = s.getOutputStream();
                    InputStream in = new BufferedInputStream(s.getInputStream());
                    long k;
                    while (failure.get() == null && (k = next.getAndIncrement()) < n) {
                        String head = "PUT /v0/entity?id=" + KeySpace.key(k) + replicaQuery + " HTTP/1.1\r\nHost: "
                                + url.getHost() + "\r\nContent-Length: " + valueSize + "\r\n\r\n";
                        out.write(head.getBytes(StandardCharsets.US_ASCII));
                        out.write(value);
                        out.flush();
                        int status = readResponse(in);
                        if (status != 201) {
                            throw new IOException("prefill PUT of " + KeySpace.key(k) + " answered " + status + ", expected 201");
                        }
                        done.incrementAndGet();
                    }
                } catch (IOException | RuntimeException e) {
                    failure.compareAndSet(null, e);
                }
            });
        }
        while (true) {
            boolean alive = false;
            for (Thread t : workers) {
                alive |= t.isAlive();
            }
            progress.print("\r" + bar(done.get(), n, System.nanoTime() - started));
            progress.flush();
            if (!alive) {
                break;
            }
            Thread.sleep(250);
        }
        progress.println();
        if (failure.get() != null) {
            throw new IOException("prefill failed after " + done.get() + " keys: " + failure.get().getMessage(), failure.get());
        }
        return n / ((System.nanoTime() - started) / 1e9);
    }

    /** A progress bar line, e.g. {@code prefill [#####-----]  50%  500,000/1,000,000 keys  35,012 keys/s}. */
    static String bar(long done, long n, long elapsedNanos) {
        int width = 30;
        int filled = (int) (width * done / Math.max(1, n));
        double rate = done / Math.max(1e-9, elapsedNanos / 1e9);
        return String.format("prefill [%s%s] %3d%%  %,d/%,d keys  %,.0f keys/s", "#".repeat(filled),
                "-".repeat(width - filled), 100 * done / Math.max(1, n), done, n, rate);
    }

    /** Reads one HTTP/1.1 response with a Content-Length body; returns its status. */
    private static int readResponse(InputStream in) throws IOException {
        String statusLine = readLine(in);
        String[] parts = statusLine.split(" ", 3);
        if (parts.length < 2) {
            throw new IOException("bad status line: " + statusLine);
        }
        int status = Integer.parseInt(parts[1]);
        long length = 0;
        String line;
        while (!(line = readLine(in)).isEmpty()) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase("content-length")) {
                length = Long.parseLong(line.substring(colon + 1).trim());
            }
        }
        in.skipNBytes(length);
        return status;
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder();
        int b;
        while ((b = in.read()) != '\n') {
            if (b < 0) {
                throw new IOException("connection closed by the node");
            }
            if (b != '\r') {
                sb.append((char) b);
            }
        }
        return sb.toString();
    }
}
