package io.ringbase.storage.wal;

import static io.ringbase.storage.Layouts.I32;
import static io.ringbase.storage.Layouts.U8;

import io.ringbase.storage.Entry;
import io.ringbase.storage.EntryFormat;
import io.ringbase.storage.Layouts;
import java.io.Closeable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.zip.CRC32C;

/**
 * Appends {@link Entry entries} to one WAL segment file in the format of {@code docs/format.md},
 * section 3 ("WAL segment"), with group commit.
 *
 * <p><b>Threading.</b> {@link #append}, {@link #sync}, {@link #close}, {@link #sizeBytes} and
 * {@link #path} are thread-safe. Callers put their entry on a bounded queue (blocking while it is
 * full) and wait; one writer thread per segment takes everything queued (up to about
 * {@value #BATCH_BYTES} bytes, or one record of any allowed size), encodes it into one reused direct
 * buffer, hands it to the file with one {@code write()}, fsyncs if the {@link WalSyncPolicy} or a
 * {@link #sync} asks for it, and only then releases the waiting callers. Concurrent appenders thus
 * share {@code write()} and fsync calls. Only the writer thread touches the file, so interrupting a
 * caller never closes the channel.
 *
 * <p><b>Failure.</b> If a {@code write()} or fsync fails, the segment is poisoned: every pending and
 * every later {@link #append} or {@link #sync} fails with an {@link IOException} whose cause is the
 * original failure. A failed fsync is never retried (the kernel may have dropped the dirty pages).
 */
public final class WalWriter implements Closeable {

    /** Default of {@code periodicSyncIntervalMs} for {@link WalSyncPolicy#PERIODIC}, in ms. */
    public static final long DEFAULT_PERIODIC_SYNC_INTERVAL_MS = 1000;

    /** A batch of records stops growing at this many bytes (1 MiB); a larger single record is written alone. */
    static final int BATCH_BYTES = 1024 * 1024;

    /** Appends that may wait for the writer thread before {@link #append} blocks. */
    static final int QUEUE_CAPACITY = 4096;

    /** A queued request: an entry to append, or a marker ({@code entry == null}) asking for an fsync. */
    private record Request(Entry entry, int recordSize, boolean forceSync, CompletableFuture<Void> done) {
        static Request sync() {
            return new Request(null, 0, true, new CompletableFuture<>());
        }
    }

    private final Path path;
    private final FileChannel channel;
    private final WalSyncPolicy policy;
    private final long syncIntervalNanos;
    private final BlockingQueue<Request> queue = new ArrayBlockingQueue<>(QUEUE_CAPACITY);
    /** Appenders hold the read side while checking {@link #closed} and enqueuing; close takes the write side. */
    private final ReadWriteLock gate = new ReentrantReadWriteLock();
    private final Thread writerThread;
    private final Request closeMarker = Request.sync();

    private boolean closed; // guarded by gate
    private volatile IOException failure;
    private volatile long sizeBytes;
    private volatile long writeCalls;
    private volatile long syncCalls;

    // Owned by the writer thread.
    private ByteBuffer batchBuffer = ByteBuffer.allocateDirect(BATCH_BYTES).order(Layouts.ORDER);
    private final CRC32C crc = new CRC32C();
    private final List<Request> batch = new ArrayList<>();
    private boolean unsynced;
    private long lastSyncNanos;

    private WalWriter(Path path, FileChannel channel, WalSyncPolicy policy, long periodicSyncIntervalMs) {
        this.path = path;
        this.channel = channel;
        this.policy = policy;
        this.syncIntervalNanos = TimeUnit.MILLISECONDS.toNanos(periodicSyncIntervalMs);
        this.sizeBytes = WalFormat.SEGMENT_HEADER_SIZE;
        this.lastSyncNanos = System.nanoTime();
        this.writerThread = Thread.ofPlatform()
                .name("wal-writer-" + path.getFileName())
                .daemon(true)
                .unstarted(this::runWriter);
    }

    /**
     * Creates a new segment file, writes its header and fsyncs it and its directory, and starts the
     * writer thread.
     *
     * @param file                   the segment to create; must not exist
     * @param policy                 when appended records are fsynced
     * @param periodicSyncIntervalMs for {@link WalSyncPolicy#PERIODIC}: the longest time, in ms, that
     *                               written data stays unsynced (default
     *                               {@value #DEFAULT_PERIODIC_SYNC_INTERVAL_MS}); must be positive,
     *                               ignored for {@link WalSyncPolicy#ALWAYS}
     * @throws java.nio.file.FileAlreadyExistsException if {@code file} exists
     * @throws IOException                              if the file cannot be created or synced
     * @throws IllegalArgumentException                 if {@code periodicSyncIntervalMs <= 0}
     */
    public static WalWriter create(Path file, WalSyncPolicy policy, long periodicSyncIntervalMs)
            throws IOException {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(policy, "policy");
        if (periodicSyncIntervalMs <= 0) {
            throw new IllegalArgumentException("periodicSyncIntervalMs must be positive: " + periodicSyncIntervalMs);
        }
        FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        try {
            ByteBuffer header = ByteBuffer.allocate(WalFormat.SEGMENT_HEADER_SIZE).order(Layouts.ORDER);
            header.putInt(WalFormat.MAGIC).putInt(WalFormat.VERSION).flip();
            while (header.hasRemaining()) {
                channel.write(header);
            }
            channel.force(false);
            syncDirectory(file.toAbsolutePath().getParent());
        } catch (IOException | RuntimeException e) {
            try {
                channel.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        WalWriter writer = new WalWriter(file, channel, policy, periodicSyncIntervalMs);
        writer.writerThread.start();
        return writer;
    }

    /**
     * Appends one entry. Blocks while the queue is full, then until the record has been written to the
     * file ({@link WalSyncPolicy#PERIODIC}) or written and fsynced ({@link WalSyncPolicy#ALWAYS}).
     * Thread-safe; records of concurrent callers land in the file in the order the writer takes them.
     *
     * @throws IllegalArgumentException if the encoded entry is larger than 16 MiB + 64 KiB + 25 bytes
     * @throws InterruptedIOException   if interrupted while waiting; the record may or may not have been
     *                                  written
     * @throws IOException              if the writer is closed or poisoned by an earlier failure, or
     *                                  the write or fsync of this record failed
     */
    public void append(Entry entry) throws IOException {
        long payload = EntryFormat.encodedSize(entry);
        if (payload > WalFormat.MAX_PAYLOAD) {
            throw new IllegalArgumentException(
                    "entry of " + payload + " bytes exceeds the WAL record limit of " + WalFormat.MAX_PAYLOAD);
        }
        submit(new Request(entry, WalFormat.RECORD_HEADER_SIZE + (int) payload, false, new CompletableFuture<>()));
    }

    /**
     * Fsyncs every record appended before this call: an explicit durability point. Thread-safe; shares
     * the fsync with concurrent appends.
     *
     * @throws IOException if the writer is closed or poisoned, or the fsync failed
     */
    public void sync() throws IOException {
        submit(Request.sync());
    }

    /** Bytes written to the file so far (segment header included); records still queued are not counted. */
    public long sizeBytes() {
        return sizeBytes;
    }

    /** The segment file. */
    public Path path() {
        return path;
    }

    /**
     * Completes every append queued before the call, fsyncs, stops the writer thread and closes the
     * file. Later appends fail with {@link IOException}. Idempotent; thread-safe.
     *
     * @throws IOException if the final fsync or close failed, or the writer had been poisoned (the
     *                     file is closed nonetheless)
     */
    @Override
    public void close() throws IOException {
        gate.writeLock().lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
        } finally {
            gate.writeLock().unlock();
        }
        boolean interrupted = false;
        while (true) {
            try {
                queue.put(closeMarker);
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        while (true) {
            try {
                writerThread.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        IOException f = failure;
        if (f != null) {
            throw new IOException("WAL segment " + path + " failed earlier", f);
        }
        try {
            closeMarker.done.get();
        } catch (InterruptedException | ExecutionException e) {
            throw asIOException(e);
        }
    }

    /** Number of {@code write()} calls the writer made for records (the segment header not counted). */
    long writeCalls() {
        return writeCalls;
    }

    /** Number of fsyncs the writer made after the segment header (the final one in close included). */
    long syncCalls() {
        return syncCalls;
    }

    /** Test hook: closes the file under the writer so that the next write or fsync fails. */
    void closeChannelForTest() throws IOException {
        channel.close();
    }

    private void submit(Request request) throws IOException {
        IOException f = failure;
        if (f != null) {
            throw poisoned(f);
        }
        gate.readLock().lock();
        try {
            if (closed) {
                throw new IOException("WAL segment " + path + " is closed");
            }
            queue.put(request);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted before the record was queued");
        } finally {
            gate.readLock().unlock();
        }
        try {
            request.done.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting; the record may or may not be written");
        } catch (ExecutionException e) {
            throw asIOException(e);
        }
    }

    private IOException poisoned(IOException cause) {
        return new IOException("WAL segment " + path + " is unusable after a failed write or fsync", cause);
    }

    private static IOException asIOException(Exception e) {
        Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
        if (cause instanceof IOException io) {
            // Wrap to keep the caller's stack trace; the writer thread's is in the cause.
            return new IOException(io.getMessage(), io);
        }
        return new IOException(cause);
    }

    // ---- writer thread ----

    private void runWriter() {
        boolean running = true;
        while (running) {
            Request first;
            try {
                first = nextRequest();
            } catch (InterruptedException e) {
                continue; // nobody should interrupt this thread; keep serving the queue
            }
            if (first == null) {
                periodicSync(); // timed out with unsynced data
                continue;
            }
            batch.add(first);
            running = first != closeMarker;
            if (running) {
                running = drainInto(first.recordSize);
            }
            processBatch();
        }
        closeChannel();
    }

    /** Waits for the next request; returns {@code null} when a periodic fsync is due first. */
    private Request nextRequest() throws InterruptedException {
        if (policy == WalSyncPolicy.PERIODIC && unsynced && failure == null) {
            long wait = lastSyncNanos + syncIntervalNanos - System.nanoTime();
            return wait <= 0 ? null : queue.poll(wait, TimeUnit.NANOSECONDS);
        }
        return queue.take();
    }

    /** Moves queued requests into {@link #batch} up to {@link #BATCH_BYTES}; false if it took the close marker. */
    private boolean drainInto(long bytes) {
        while (true) {
            Request next = queue.peek(); // single consumer: the peeked request stays at the head
            if (next == null || bytes + next.recordSize > BATCH_BYTES) {
                return true;
            }
            queue.poll();
            batch.add(next);
            bytes += next.recordSize;
            if (next == closeMarker) {
                return false;
            }
        }
    }

    private void processBatch() {
        try {
            IOException f = failure;
            if (f != null) {
                throw f;
            }
            boolean forceSync = policy == WalSyncPolicy.ALWAYS;
            long bytes = 0;
            for (Request r : batch) {
                bytes += r.recordSize;
                forceSync |= r.forceSync;
            }
            if (bytes > 0) {
                writeRecords(bytes);
            }
            if (forceSync && unsynced) {
                fsync();
            } else if (unsynced && policy == WalSyncPolicy.PERIODIC
                    && System.nanoTime() - lastSyncNanos >= syncIntervalNanos) {
                fsync();
            }
            for (Request r : batch) {
                r.done.complete(null);
            }
        } catch (IOException | RuntimeException | Error e) {
            // Anything else (e.g. no direct memory for a huge record) also poisons the segment rather
            // than leaving callers waiting on a dead writer thread.
            IOException io = e instanceof IOException x ? x : new IOException("WAL writer failed", e);
            if (failure == null) {
                failure = io;
            }
            for (Request r : batch) {
                r.done.completeExceptionally(io);
            }
        } finally {
            batch.clear();
        }
    }

    private void writeRecords(long bytes) throws IOException {
        if (bytes > batchBuffer.capacity()) {
            // Only a single record larger than BATCH_BYTES gets here; keep the larger buffer for reuse.
            batchBuffer = ByteBuffer.allocateDirect(Math.toIntExact(bytes)).order(Layouts.ORDER);
        }
        ByteBuffer buf = batchBuffer.clear();
        MemorySegment seg = MemorySegment.ofBuffer(buf);
        long offset = 0;
        for (Request r : batch) {
            if (r.entry != null) {
                offset = encode(r.entry, seg, buf, (int) offset);
            }
        }
        buf.limit((int) offset);
        while (buf.hasRemaining()) {
            channel.write(buf);
        }
        writeCalls++;
        sizeBytes += offset;
        unsynced = true;
    }

    /** Writes one record at {@code offset}; returns the offset past it. */
    private int encode(Entry entry, MemorySegment seg, ByteBuffer buf, int offset) {
        int payloadStart = offset + WalFormat.RECORD_HEADER_SIZE;
        int end = (int) EntryFormat.write(entry, seg, payloadStart);
        seg.set(I32, offset + WalFormat.OFF_LENGTH, end - payloadStart);
        seg.set(U8, offset + WalFormat.OFF_TYPE, WalFormat.RecordType.FULL.code);
        crc.reset();
        crc.update(buf.slice(offset + WalFormat.OFF_LENGTH, end - offset - WalFormat.OFF_LENGTH));
        seg.set(I32, offset + WalFormat.OFF_CRC, (int) crc.getValue());
        return end;
    }

    private void periodicSync() {
        if (!unsynced || failure != null) {
            return;
        }
        try {
            fsync();
        } catch (IOException e) {
            failure = e; // nobody waits on this fsync; later appends see the failure
        }
    }

    /** The durability point: forces written records to stable storage. Never retried on failure. */
    private void fsync() throws IOException {
        channel.force(false);
        syncCalls++;
        unsynced = false;
        lastSyncNanos = System.nanoTime();
    }

    private void closeChannel() {
        try {
            channel.close();
        } catch (IOException e) {
            if (failure == null) {
                failure = e;
            }
        }
        // Nothing can be queued after the close marker (appenders check `closed` under the gate).
    }

    private static void syncDirectory(Path dir) throws IOException {
        if (dir == null) {
            return;
        }
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        }
    }
}
