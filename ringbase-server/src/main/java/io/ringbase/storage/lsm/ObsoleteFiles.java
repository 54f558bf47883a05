package io.ringbase.storage.lsm;

import io.ringbase.storage.lsm.io.FileIo;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes the files the manifest no longer needs (the SSTables a compaction has replaced, the WAL segment
 * of a flushed memtable) and retries a delete that failed, so that a transient error (EIO, EBUSY, an NFS
 * hiccup) does not leave the file taking disk space until the next restart (which deletes every table the
 * manifest does not name and every WAL segment below its replay point). A failed delete is retried on the
 * compaction thread after {@value #FIRST_RETRY_MS} ms, the wait doubling up to {@value #MAX_RETRY_MS} ms,
 * at most {@value #MAX_ATTEMPTS} times (about 12 minutes); one WARN line when a file's delete first
 * fails, one INFO line if a retry deletes it, one ERROR line if it is given up. The published manifest
 * no longer needs the file, so nothing reads it: the retries are about space only. Every failed attempt
 * counts as a disk error in the engine's figures.
 *
 * <p>Thread-safe: {@link #delete} runs on the compaction thread and so do the retries; pending files are
 * at most the inputs of the compactions whose deletes failed.
 */
final class ObsoleteFiles {

    private static final Logger log = LoggerFactory.getLogger(LsmEngine.class);

    static final long FIRST_RETRY_MS = 100;
    static final long MAX_RETRY_MS = 60_000;
    static final int MAX_ATTEMPTS = 20;

    /** A file whose delete failed: how many retries were made and the wait before the next, ms. */
    private record Pending(int attempts, long waitMs) {}

    private final FileIo io;
    private final Executor thread;
    private final BooleanSupplier closing;
    private final Runnable failedDelete;
    private final Map<Path, Pending> pending = new ConcurrentHashMap<>();

    /**
     * @param io           the file layer deletes go through
     * @param thread       the compaction thread, which the retries run on
     * @param closing      whether the engine is closing: retries stop then (a restart deletes the files)
     * @param failedDelete called on every failed attempt (the engine counts a disk error)
     */
    ObsoleteFiles(FileIo io, Executor thread, BooleanSupplier closing, Runnable failedDelete) {
        this.io = io;
        this.thread = thread;
        this.closing = closing;
        this.failedDelete = failedDelete;
    }

    /**
     * Deletes {@code file}, which the manifest no longer needs; if that fails, logs it once and retries later.
     *
     * @param what what the file is, for the log line ("which a compaction replaced")
     */
    void delete(Path file, String what) {
        try {
            io.delete(file);
        } catch (IOException e) {
            failedDelete.run();
            log.warn(
                    "could not delete {}, {} ({}); retrying in the background, and a restart deletes it too",
                    file.getFileName(),
                    what,
                    e.toString());
            retryLater(file, new Pending(0, FIRST_RETRY_MS));
        }
    }

    /** Files whose delete failed and is still to be retried. */
    int pendingCount() {
        return pending.size();
    }

    private void retryLater(Path file, Pending next) {
        pending.put(file, next);
        try {
            CompletableFuture.delayedExecutor(next.waitMs(), TimeUnit.MILLISECONDS, thread)
                    .execute(() -> retry(file));
        } catch (RejectedExecutionException e) {
            pending.remove(file); // the engine is closing: a restart deletes the file
        }
    }

    /** Compaction thread: one more attempt at {@code file}. */
    private void retry(Path file) {
        Pending p = pending.get(file);
        if (p == null || closing.getAsBoolean()) {
            pending.remove(file);
            return;
        }
        try {
            io.delete(file);
            pending.remove(file);
            log.info("deleted {} on retry {}", file.getFileName(), p.attempts() + 1);
        } catch (IOException e) {
            failedDelete.run();
            int attempts = p.attempts() + 1;
            if (attempts >= MAX_ATTEMPTS) {
                pending.remove(file);
                log.error(
                        "gave up deleting {} after {} retries ({}); it takes disk space until it is deleted by hand "
                                + "or the node restarts (a start deletes every file the manifest no longer needs)",
                        file,
                        attempts,
                        e.toString());
                return;
            }
            retryLater(file, new Pending(attempts, Math.min(MAX_RETRY_MS, 2 * p.waitMs())));
        }
    }
}
