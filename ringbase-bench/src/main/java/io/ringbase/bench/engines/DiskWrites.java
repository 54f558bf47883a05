package io.ringbase.bench.engines;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

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
        long written = 0;
        long cancelled = 0;
        for (String line : Files.readAllLines(PROC_IO)) {
            if (line.startsWith("write_bytes:")) {
                written = Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
            } else if (line.startsWith("cancelled_write_bytes:")) {
                cancelled = Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        return written - cancelled;
    }

    /**
     * Bytes this process has caused to be read from the block device so far ({@code read_bytes}): page
     * cache misses of reads and mapping faults, read-ahead included.
     */
    static long readNow() throws IOException {
        for (String line : Files.readAllLines(PROC_IO)) {
            if (line.startsWith("read_bytes:")) {
                return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
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
        new ProcessBuilder("sync").inheritIO().start().waitFor();
        return now();
    }
}
