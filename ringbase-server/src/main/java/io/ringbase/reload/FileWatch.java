package io.ringbase.reload;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * Watches files for a change and runs a reload when one changed. A file's stamp is its modification time,
 * size and file key (its inode), so a new file renamed over the old one is a change even with the same
 * time and size; a file that cannot be read has a stamp of its own, so its loss is one change and its
 * return another. The stamps are taken when the watch is made, before the owner's first load, so a change
 * made during that load is seen at the first poll.
 *
 * <p>After {@link #start}, one daemon thread compares the stamps every interval and runs the reload when
 * any moved, on that thread. The reload must keep what it had loaded when a new load fails, and must not
 * throw: an exception would stop the polling for good. Thread-safe.
 */
public final class FileWatch implements AutoCloseable {

    private record Stamp(
            @Nullable FileTime modified,
            long size,
            @Nullable Object key) {
        static final Stamp UNREADABLE = new Stamp(null, -1, null);
    }

    private final String threadName;
    private final List<Path> files;
    private List<Stamp> seen; // the poller's only, once started
    private @Nullable ScheduledExecutorService poller;
    private @Nullable Runnable reload;

    /**
     * Takes the stamps of {@code files} now.
     *
     * @param threadName the name of the polling thread, once started
     */
    public FileWatch(String threadName, List<Path> files) {
        this.threadName = threadName;
        this.files = List.copyOf(files);
        this.seen = stamps(this.files);
    }

    /**
     * Starts polling every {@code everyMs}, running {@code reload} after a change. Call once.
     *
     * @throws IllegalArgumentException if {@code everyMs} is below 1
     * @throws IllegalStateException if already started
     */
    public synchronized void start(long everyMs, Runnable reload) {
        if (everyMs < 1) {
            throw new IllegalArgumentException("the poll interval must be at least 1 ms, got " + everyMs);
        }
        if (poller != null) {
            throw new IllegalStateException(threadName + " is already started");
        }
        this.reload = reload;
        ScheduledExecutorService p = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().name(threadName).daemon().factory());
        poller = p;
        var _ = p.scheduleWithFixedDelay(this::poll, everyMs, everyMs, TimeUnit.MILLISECONDS);
    }

    /**
     * Looks at the files once, on the polling thread, as a poll does: for tests that drive the reload
     * themselves. Waits up to 10 s.
     *
     * @throws IllegalStateException if not started, or if the poll failed or took longer
     */
    public void pollNow() throws InterruptedException {
        ScheduledExecutorService p;
        synchronized (this) {
            p = poller;
        }
        if (p == null) {
            throw new IllegalStateException(threadName + " is not started");
        }
        try {
            p.submit(this::poll).get(10, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException(threadName + " poll failed", e);
        }
    }

    private void poll() {
        List<Stamp> now = stamps(files);
        if (now.equals(seen)) {
            return;
        }
        seen = now;
        Runnable r = reload;
        if (r != null) {
            r.run();
        }
    }

    private static List<Stamp> stamps(List<Path> files) {
        List<Stamp> stamps = new ArrayList<>(files.size());
        for (Path file : files) {
            try {
                BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
                stamps.add(new Stamp(a.lastModifiedTime(), a.size(), a.fileKey()));
            } catch (IOException e) {
                stamps.add(Stamp.UNREADABLE); // the owner's load names the file and why
            }
        }
        return stamps;
    }

    /** Stops polling; what was loaded stays as it is. */
    @Override
    public synchronized void close() {
        if (poller != null) {
            poller.shutdownNow();
        }
    }
}
