package io.ringbase.bench.engines;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Bytes this process has caused to be written to the block device: {@code write_bytes} minus
 * {@code cancelled_write_bytes} of {@code /proc/self/io} (Linux task I/O accounting), which counts the
 * JVM's and RocksDB's native threads alike, WAL, flushes and compactions, once the page cache writes them
 * back. {@link #settle} forces that writeback with {@code sync(1)}. {@link #readNow} gives the bytes read
 * from the device the same way.
 */
final class DiskWrites {

    private static final Path PROC_IO = Path.of("/proc/self/io");

    private DiskWrites() {}

    /** Bytes written to disk so far (write_bytes - cancelled_write_bytes). */
    static long now() throws IOException {
        List<String> io = Files.readAllLines(PROC_IO);
        return field(io, "write_bytes") - field(io, "cancelled_write_bytes");
    }

    /**
     * Bytes this process has caused to be read from the block device so far ({@code read_bytes}): page
     * cache misses of reads and mapping faults, read-ahead included.
     */
    static long readNow() throws IOException {
        return field(Files.readAllLines(PROC_IO), "read_bytes");
    }

    /** The value of {@code name} among the {@code name: value} lines of {@code /proc/self/io}; 0 if absent. */
    private static long field(List<String> lines, String name) {
        for (String line : lines) {
            if (line.startsWith(name + ":")) {
                return Long.parseLong(line.substring(name.length() + 1).trim());
            }
        }
        return 0;
    }

    /**
     * Runs {@code sync} until a whole {@code quietMs} passes with less than 1 MiB written (background
     * flushes and compactions have finished), or {@code maxMs} passes.
     *
     * @return the bytes written to disk at the end ({@link #now})
     */
    static long settle(long quietMs, long maxMs) throws IOException, InterruptedException {
        long deadline = System.currentTimeMillis() + maxMs;
        long last = syncAndRead();
        while (System.currentTimeMillis() < deadline) {
            Thread.sleep(quietMs);
            long current = syncAndRead();
            if (current - last < (1 << 20)) {
                return current;
            }
            last = current;
        }
        return last;
    }

    private static long syncAndRead() throws IOException, InterruptedException {
        sync();
        return now();
    }

    /**
     * Runs {@code sync(1)}: every dirty page of the page cache is written out.
     *
     * @throws IOException if it fails or takes over 120 s
     */
    static void sync() throws IOException, InterruptedException {
        Process sync = new ProcessBuilder("sync").inheritIO().start();
        if (!sync.waitFor(120, TimeUnit.SECONDS) || sync.exitValue() != 0) {
            sync.destroyForcibly();
            throw new IOException("sync did not finish in 120 s");
        }
    }
}
