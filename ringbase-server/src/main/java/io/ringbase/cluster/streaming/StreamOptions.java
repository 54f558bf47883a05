package io.ringbase.cluster.streaming;

/**
 * How a {@link StreamSession} streams. Every value is checked here.
 *
 * @param pageBytes        encoded bytes the source puts in one page, 1 .. 4 MiB (default 4 MiB: at 1 MiB the
 *                         round trips took twice as long per byte); the session holds two pages at once
 * @param bytesPerSecond   rate limit of received entry bytes, bytes/s; 0 for unlimited (the default)
 * @param checkpointBytes  entry bytes received between two durable cursors: each finishes an ingest (the LSM
 *                         engine: one SSTable of about this size, fsynced and published) (default 128 MiB); at
 *                         most this much is streamed again after a crash
 * @param maxRetries       further attempts at a page after its first fails, before the session fails (default 8)
 * @param initialBackoffMs wait before the first retry, ms, doubled per retry (default 100)
 * @param maxBackoffMs     longest wait between retries, ms (default 10,000)
 * @param callTimeoutMs    deadline of one page request, ms (default 60,000): the source scans past every
 *                         key the plan does not want, which at millions of keys takes far longer than a
 *                         replica read
 */
public record StreamOptions(
        int pageBytes,
        long bytesPerSecond,
        long checkpointBytes,
        int maxRetries,
        long initialBackoffMs,
        long maxBackoffMs,
        long callTimeoutMs) {

    /** Largest page, bytes: what the source's server answers at most. */
    public static final int MAX_PAGE_BYTES = 4 << 20;

    /** @throws IllegalArgumentException naming the first value out of bounds */
    public StreamOptions {
        if (pageBytes < 1 || pageBytes > MAX_PAGE_BYTES) {
            throw new IllegalArgumentException("pageBytes must be 1.." + MAX_PAGE_BYTES + ", got " + pageBytes);
        }
        if (bytesPerSecond < 0) {
            throw new IllegalArgumentException("bytesPerSecond must be >= 0 (0: unlimited), got " + bytesPerSecond);
        }
        if (checkpointBytes < 1) {
            throw new IllegalArgumentException("checkpointBytes must be positive, got " + checkpointBytes);
        }
        if (maxRetries < 0) {
            throw new IllegalArgumentException("maxRetries must be >= 0, got " + maxRetries);
        }
        if (initialBackoffMs < 0 || maxBackoffMs < initialBackoffMs) {
            throw new IllegalArgumentException("backoff must satisfy 0 <= initialBackoffMs <= maxBackoffMs, got "
                    + initialBackoffMs + " and " + maxBackoffMs);
        }
        if (callTimeoutMs < 1) {
            throw new IllegalArgumentException("callTimeoutMs must be positive, got " + callTimeoutMs);
        }
    }

    /** The defaults given above. */
    public static StreamOptions defaults() {
        return new StreamOptions(MAX_PAGE_BYTES, 0, 128L << 20, 8, 100, 10_000, 60_000);
    }

    public StreamOptions withPageBytes(int bytes) {
        return new StreamOptions(
                bytes, bytesPerSecond, checkpointBytes, maxRetries, initialBackoffMs, maxBackoffMs, callTimeoutMs);
    }

    public StreamOptions withBytesPerSecond(long rate) {
        return new StreamOptions(
                pageBytes, rate, checkpointBytes, maxRetries, initialBackoffMs, maxBackoffMs, callTimeoutMs);
    }

    public StreamOptions withCheckpointBytes(long bytes) {
        return new StreamOptions(
                pageBytes, bytesPerSecond, bytes, maxRetries, initialBackoffMs, maxBackoffMs, callTimeoutMs);
    }

    public StreamOptions withRetries(int retries, long initialMs, long maxMs) {
        return new StreamOptions(pageBytes, bytesPerSecond, checkpointBytes, retries, initialMs, maxMs, callTimeoutMs);
    }
}
