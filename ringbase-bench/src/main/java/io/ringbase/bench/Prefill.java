package io.ringbase.bench;

import io.ringbase.aot.BlockingHttpConnection;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Writes keys {@code 0..n-1} ({@link KeySpace#key}) once each, in order, over {@code connections} keep-alive
 * HTTP/1.1 connections ({@link BlockingHttpConnection}: plain sockets, one request in flight per
 * connection), and draws a progress bar.
 * Every PUT must be answered 201.
 */
public final class Prefill {

    private Prefill() {}

    /**
     * Prefills the target. Connections are spread over the nodes in {@code urls}.
     *
     * @param valueSize bytes per value
     * @return the prefill's rate in keys per second
     * @throws IOException when a connection fails or a PUT is not answered 201 (the message names key and status)
     */
    public static double run(
            List<URI> urls, long n, int valueSize, int connections, String replicaQuery, PrintStream progress)
            throws IOException, InterruptedException {
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
                try (BlockingHttpConnection http =
                        new BlockingHttpConnection(new InetSocketAddress(url.getHost(), url.getPort()))) {
                    long k;
                    while (failure.get() == null && (k = next.getAndIncrement()) < n) {
                        int status = http.send("PUT", "/v0/entity?id=" + KeySpace.key(k) + replicaQuery, value)
                                .status();
                        if (status != 201) {
                            throw new IOException(
                                    "prefill PUT of " + KeySpace.key(k) + " answered " + status + ", expected 201");
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
            throw new IOException(
                    "prefill failed after " + done.get() + " keys: "
                            + failure.get().getMessage(),
                    failure.get());
        }
        return n / ((System.nanoTime() - started) / 1e9);
    }

    /** A progress bar line, e.g. {@code prefill [#####-----]  50%  500,000/1,000,000 keys  35,012 keys/s}. */
    static String bar(long done, long n, long elapsedNanos) {
        int width = 30;
        int filled = (int) (width * done / Math.max(1, n));
        double rate = done / Math.max(1e-9, elapsedNanos / 1e9);
        return String.format(
                "prefill [%s%s] %3d%%  %,d/%,d keys  %,.0f keys/s",
                "#".repeat(filled), "-".repeat(width - filled), 100 * done / Math.max(1, n), done, n, rate);
    }
}
