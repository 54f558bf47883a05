package io.ringbase.cluster.repair;

/**
 * Settings of {@link AntiEntropyRepair}, validated on construction.
 *
 * @param pageBytes         entries are pulled and scanned in pages of about this many encoded bytes
 *                          (default 1 MiB); at most one page per side is held at a time
 * @param callTimeoutMs     how long the driver waits for any one answer of a peer before it gives the
 *                          peer up for this run, ms (default 60,000); remote peers time out on their own
 *                          too, this bounds peers that never answer
 * @param writesInFlight    entries sent to a peer without waiting for their acknowledgement
 *                          (default 32)
 * @param bytesPerSecond    rate limit of the entries pulled from peers, bytes/s; 0 for unlimited (default 0)
 */
public record RepairOptions(int pageBytes, long callTimeoutMs, int writesInFlight, long bytesPerSecond) {

    public static final int DEFAULT_PAGE_BYTES = 1 << 20;

    public RepairOptions {
        if (pageBytes < 1) {
            throw new IllegalArgumentException("pageBytes must be positive, got " + pageBytes);
        }
        if (callTimeoutMs < 1) {
            throw new IllegalArgumentException("callTimeoutMs must be positive, got " + callTimeoutMs);
        }
        if (bytesPerSecond < 0) {
            throw new IllegalArgumentException("bytesPerSecond must be >= 0 (0: unlimited), got " + bytesPerSecond);
        }
        if (writesInFlight < 1) {
            throw new IllegalArgumentException("writesInFlight must be positive, got " + writesInFlight);
        }
    }

    /** The defaults listed above. */
    public static RepairOptions defaults() {
        return new RepairOptions(DEFAULT_PAGE_BYTES, 60_000, 32, 0);
    }

    public RepairOptions withPageBytes(int bytes) {
        return new RepairOptions(bytes, callTimeoutMs, writesInFlight, bytesPerSecond);
    }

    public RepairOptions withBytesPerSecond(long rate) {
        return new RepairOptions(pageBytes, callTimeoutMs, writesInFlight, rate);
    }

    public RepairOptions withCallTimeoutMs(long timeoutMs) {
        return new RepairOptions(pageBytes, timeoutMs, writesInFlight, bytesPerSecond);
    }
}
