package io.ringbase.storage.lsm.wal;

import io.ringbase.storage.Entry;
import io.ringbase.storage.EntryFormat;
import io.ringbase.storage.Layouts;
import io.ringbase.storage.WalSyncPolicy;
import io.ringbase.storage.WriteBatch;
import io.ringbase.storage.lsm.io.FileIo;
import java.io.Closeable;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Appends {@link Entry entries} to one WAL segment file in the format of {@code docs/format.md},
 * section 3 ("WAL segment"), with group commit.
 *
 * <p><b>Group commit</b> (the writer queue of LevelDB's {@code DBImpl::Write}): each caller joins a
 * FIFO of waiting writers. The writer at the head is the leader: it takes the records of the writers
 * queued behind it (up to about {@value #BATCH_BYTES} bytes, or one record of any allowed size),
 * encodes them into one reused native buffer ({@link WalBatchWriter}), hands them to the file with one
 * {@code write()}, fsyncs if the {@link WalSyncPolicy} or a {@link #sync} asks for it, then releases
 * those writers and wakes the next head. A lone writer thus writes its own record with no thread
 * hand-off, and concurrent writers share {@code write()} and fsync calls.
 *
 * <p><b>Fsyncs</b> are {@link WalSyncer}'s: the sync policy (under {@link WalSyncPolicy#PERIODIC} a
 * thread per segment fsyncs outside the queue, so an append never waits for a disk flush) and the
 * order across segments. A segment that takes over from another ({@link #follow}) fsyncs what that one
 * still holds unsynced before each fsync of its own, and names it and its acknowledged length in its
 * first record, so that recovery keeps a prefix of the log (docs/format.md, section 3).
 *
 * <p><b>Threading.</b> All public methods are thread-safe. The queue holds at most one waiter per
 * calling thread, so it is bounded by the number of callers.
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

    /** An fsync that takes longer than this, ms, logs a WARN: a WAL fsync on a healthy SSD takes well under 10 ms. */
    static final long SLOW_SYNC_MS = 100;

    private static final ThreadLocal<WalWaiter> WAITER = ThreadLocal.withInitial(WalWaiter::new);

    private final Path path;
    private final FileChannel channel;
    private final WalSyncPolicy policy;
    private final ReentrantLock lock = new ReentrantLock();

    private final ArrayDeque<WalWaiter> writers = new ArrayDeque<>(); // guarded by lock
    private final WalSyncer syncer;
    private final WalStats stats;

    private boolean closed; // guarded by lock
    private volatile IOException failure;
    private volatile long sizeBytes;
    private volatile long writeCalls;

    /** Encodes and writes the leader's batch; owned by the current leader (one at a time, handed over under the lock). */
    private final WalBatchWriter batchWriter;

    private boolean leaderWriting; // guarded by lock: a leader is between its unlock and relock in lead()
    private boolean freeWhenIdle; // guarded by lock: close() found a leader writing, which frees the buffer
    private final List<WalWaiter> batch = new ArrayList<>();

    private WalWriter(
            Path path, FileChannel channel, WalSyncPolicy policy, long periodicSyncIntervalMs, WalStats stats) {
        this.path = path;
        this.stats = stats;
        this.channel = channel;
        this.batchWriter = new WalBatchWriter(channel);
        this.policy = policy;
        this.sizeBytes = WalFormat.SEGMENT_HEADER_SIZE;
        this.syncer = new WalSyncer(this, path, channel, policy, periodicSyncIntervalMs, stats);
    }

    /**
     * Creates a new segment file, writes its header and fsyncs it and its directory.
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
    public static WalWriter create(Path file, WalSyncPolicy policy, long periodicSyncIntervalMs) throws IOException {
        return create(file, policy, periodicSyncIntervalMs, new WalStats());
    }

    /**
     * {@link #create(Path, WalSyncPolicy, long)}, counting appends, fsyncs and failures in {@code stats}
     * (shared by the segments of one engine).
     */
    public static WalWriter create(Path file, WalSyncPolicy policy, long periodicSyncIntervalMs, WalStats stats)
            throws IOException {
        return create(FileIo.DISK, file, policy, periodicSyncIntervalMs, stats);
    }

    /**
     * {@link #create(Path, WalSyncPolicy, long, WalStats)} through {@code io}: the segment is created,
     * written and fsynced, and its directory fsynced, by {@code io}'s channel and calls.
     */
    public static WalWriter create(
            FileIo io, Path file, WalSyncPolicy policy, long periodicSyncIntervalMs, WalStats stats)
            throws IOException {
        Objects.requireNonNull(io, "io");
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(stats, "stats");
        Objects.requireNonNull(policy, "policy");
        if (periodicSyncIntervalMs <= 0) {
            throw new IllegalArgumentException("periodicSyncIntervalMs must be positive: " + periodicSyncIntervalMs);
        }
        FileChannel channel = io.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        try {
            // direct, as the batch buffer is: one ByteBuffer class in the JDK's write path
            ByteBuffer header =
                    ByteBuffer.allocateDirect(WalFormat.SEGMENT_HEADER_SIZE).order(Layouts.ORDER);
            header.putInt(WalFormat.MAGIC).putInt(WalFormat.VERSION).flip();
            while (header.hasRemaining()) {
                channel.write(header);
            }
            channel.force(false);
            io.syncDirectory(file.toAbsolutePath().getParent());
        } catch (IOException | RuntimeException e) {
            try {
                channel.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            try {
                io.delete(file); // a segment that is not durably there must not be left behind
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        WalWriter writer = new WalWriter(file, channel, policy, periodicSyncIntervalMs, stats);
        try {
            writer.syncer.start();
        } catch (RuntimeException | Error e) { // OutOfMemoryError: unable to create native thread
            try {
                writer.close();
                io.delete(file);
            } catch (IOException | RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        return writer;
    }

    /**
     * Appends one entry. Returns once the record has been written to the file
     * ({@link WalSyncPolicy#PERIODIC}) or written and fsynced ({@link WalSyncPolicy#ALWAYS}).
     * Thread-safe; records of concurrent callers land in the file in the order they joined the queue.
     *
     * @throws IllegalArgumentException if the encoded entry is larger than 16 MiB + 64 KiB + 25 + 128 bytes
     * @throws IOException              if the writer is closed or poisoned by an earlier failure, or
     *                                  the write or fsync of this record failed
     */
    public void append(Entry entry) throws IOException {
        byte[] value = entry.value();
        append(
                entry.key(),
                entry.version(),
                entry.expiresAtMs(),
                value == null ? null : MemorySegment.ofArray(value),
                entry.typed());
    }

    /**
     * Appends one entry given by its parts, as {@link #append(Entry)}, copying {@code value} straight into
     * the write buffer. {@code value} is read before this method returns and not after.
     *
     * @param value the value bytes, or {@code null} for a tombstone
     * @param typed whether {@code value} starts with a {@code ContentType} prefix (the record's flag bit 2)
     * @throws IllegalArgumentException if the encoded entry is larger than 16 MiB + 64 KiB + 25 + 128 bytes
     * @throws IOException              as {@link #append(Entry)}
     */
    public void append(byte[] key, long version, long expiresAtMs, MemorySegment value, boolean typed)
            throws IOException {
        long payload = EntryFormat.encodedSize(key.length, value == null ? 0 : value.byteSize());
        if (payload > WalFormat.MAX_PAYLOAD) {
            throw new IllegalArgumentException(
                    "entry of " + payload + " bytes exceeds the WAL record limit of " + WalFormat.MAX_PAYLOAD);
        }
        WalWaiter self = WAITER.get();
        self.set(key, version, expiresAtMs, value, typed, WalFormat.RECORD_HEADER_SIZE + (int) payload, false);
        submit(self, false);
    }

    /**
     * Appends entries {@code from} (inclusive) to {@code to} of {@code batch}, in order, as
     * {@link #append(byte[], long, long, MemorySegment, boolean)} does one: returns once all their records have
     * been written to the file with one {@code write()} (and fsynced for {@link WalSyncPolicy#ALWAYS}).
     * Either all of them are written or the call throws.
     *
     * @throws IllegalArgumentException if their records together exceed {@value #BATCH_BYTES} bytes
     * @throws IOException              as {@link #append(Entry)}
     */
    public void appendAll(WriteBatch batch, int from, int to) throws IOException {
        Objects.checkFromToIndex(from, to, batch.size());
        long bytes = 0;
        for (int i = from; i < to; i++) {
            bytes += recordSize(batch.key(i).length, batch.valueLength(i));
        }
        if (bytes > BATCH_BYTES) {
            throw new IllegalArgumentException("a batch of " + bytes + " bytes of WAL records exceeds " + BATCH_BYTES);
        }
        if (from == to) {
            return;
        }
        WalWaiter self = WAITER.get();
        self.setMany(batch, from, to, (int) bytes);
        submit(self, false);
    }

    /**
     * Size of the WAL record of an entry with a key and a value of these lengths, bytes (record
     * header included; docs/format.md section 3).
     */
    public static long recordSize(int keyLength, long valueLength) {
        return WalFormat.RECORD_HEADER_SIZE + EntryFormat.encodedSize(keyLength, valueLength);
    }

    /**
     * Fsyncs every record appended before this call: an explicit durability point. Thread-safe; shares
     * the fsync with concurrent appends.
     *
     * @throws IOException if the writer is closed or poisoned, or the fsync failed
     */
    public void sync() throws IOException {
        WalWaiter self = WAITER.get();
        self.set(null, 0, 0, null, false, 0, true);
        submit(self, false);
    }

    /**
     * Makes this new segment follow {@code previous} (number {@code previousNumber}) in the log, before any
     * append: writes the {@code PREDECESSOR} record (docs/format.md, section 3) naming it and how many of
     * its bytes acknowledged writes need ({@link #acknowledgedBytes()}), so that recovery replays this
     * segment only if that one is at least that long; and makes every fsync of this segment fsync
     * {@code previous} first, so that no record here is durable before the records there. Without the two,
     * the OS's writeback or this segment's own syncer could make a later write durable and lose an
     * earlier one.
     *
     * @throws IOException           if the record cannot be written (the segment is then poisoned)
     * @throws IllegalStateException if anything was appended already
     */
    public void follow(long previousNumber, WalWriter previous) throws IOException {
        lock.lock();
        try {
            if (sizeBytes != WalFormat.SEGMENT_HEADER_SIZE || !writers.isEmpty() || failure != null) {
                throw new IllegalStateException("WAL segment " + path + " is in use: it cannot follow another");
            }
            ByteBuffer record = WalFormat.predecessorRecord(previousNumber, previous.acknowledgedBytes());
            try {
                while (record.hasRemaining()) {
                    channel.write(record);
                }
            } catch (IOException e) {
                failure = e;
                stats.failed();
                throw e;
            }
            sizeBytes = WalFormat.SEGMENT_HEADER_SIZE + WalFormat.PREDECESSOR_RECORD_SIZE; // nothing else written
            syncer.follow(previous.syncer);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Bytes of this segment that acknowledged appends need: everything written under
     * {@link WalSyncPolicy#PERIODIC} (an append is acknowledged once written), what the last fsync covered
     * under {@link WalSyncPolicy#ALWAYS} (a batch whose fsync failed was never acknowledged).
     */
    public long acknowledgedBytes() {
        return policy == WalSyncPolicy.ALWAYS ? syncer.syncedBytes() : sizeBytes;
    }

    /** Bytes written to the file so far (segment header included); records still queued are not counted. */
    public long sizeBytes() {
        return sizeBytes;
    }

    /**
     * The failure that made this segment unusable (a failed {@code write()} or fsync), or {@code null}
     * while it takes appends.
     */
    public IOException failure() {
        return failure;
    }

    /**
     * Runs {@code action} (once, on the thread that saw it; it must not block) when the periodic fsync
     * poisons this segment, so that the owner can roll to a fresh one while no append is under way.
     */
    public void onPoisoned(Runnable action) {
        syncer.onPoisoned(Objects.requireNonNull(action, "action"));
    }

    /** The segment file. */
    public Path path() {
        return path;
    }

    /**
     * Completes every append queued before the call, fsyncs, stops the sync thread and closes the
     * file. Later appends fail with {@link IOException}. Idempotent; thread-safe.
     *
     * @throws IOException if the final fsync or close failed, or the writer had been poisoned (the
     *                     file is closed nonetheless)
     */
    @Override
    public void close() throws IOException {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true; // appends that joined the queue before this point are still served
        } finally {
            lock.unlock();
        }
        IOException result = null;
        try {
            WalWaiter self = WAITER.get();
            self.set(null, 0, 0, null, false, 0, true);
            submit(self, true); // behind every earlier append: write them all, then fsync
        } catch (IOException e) {
            result = e;
        }
        syncer.stop();
        try {
            channel.close();
        } catch (IOException e) {
            result = result == null ? e : result;
        }
        lock.lock();
        try {
            // Every append that joined before close() has been served, or (poisoned) will write nothing;
            // a leader still between its unlock and relock frees the buffer itself when it is done.
            if (leaderWriting) {
                freeWhenIdle = true;
            } else {
                freeBuffer();
            }
        } finally {
            lock.unlock();
        }
        if (result != null) {
            throw new IOException("WAL segment " + path + " failed", result);
        }
    }

    /** Frees the batch buffer's memory once: the writer is closed and no leader writes. Holding the lock. */
    private void freeBuffer() {
        batchWriter.free();
    }

    /** Number of {@code write()} calls made for records (the segment header not counted). */
    long writeCalls() {
        return writeCalls;
    }

    /** Number of fsyncs made after the segment header (the final one in close included). */
    long syncCalls() {
        return syncer.syncCalls();
    }

    /** Test hook: whether this segment still holds on to an earlier one it must fsync first. */
    boolean holdsPredecessorForTest() {
        return syncer.holdsPredecessor();
    }

    /** Test hook: whether the batch buffer's native memory has been freed. */
    boolean bufferFreedForTest() {
        return batchWriter.freed();
    }

    /** Test hook: closes the file under the writer so that the next write or fsync fails. */
    void closeChannelForTest() throws IOException {
        channel.close();
    }

    /**
     * Joins the writer queue and returns once this request is done, leading a batch when it reaches
     * the head. {@code closing} lets close()'s own final fsync past the closed check. Waiting threads
     * park; whoever finishes their batch, or makes them the head, unparks them.
     */
    private void submit(WalWaiter self, boolean closing) throws IOException {
        lock.lock();
        try {
            IOException f = failure;
            if (f != null) {
                throw poisoned(f);
            }
            if (closed && !closing) {
                throw new IOException("WAL segment " + path + " is closed");
            }
            writers.addLast(self);
            boolean interrupted = false;
            while (!self.done && writers.peekFirst() != self) {
                lock.unlock();
                try {
                    LockSupport.park(this);
                    // uninterruptible, as the record may be in a batch already; the flag is restored below
                    interrupted |= Thread.interrupted();
                } finally {
                    lock.lock();
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            if (!self.done) {
                lead(self);
            }
            if (self.error != null) {
                throw new IOException(self.error.getMessage(), self.error); // keeps the caller's stack
            }
        } finally {
            self.clear();
            lock.unlock();
        }
    }

    /** At the head of the queue, holding the lock: writes a batch with the lock released, then hands over. */
    private void lead(WalWaiter self) {
        long bytes = 0;
        boolean forceSync = policy == WalSyncPolicy.ALWAYS;
        for (WalWaiter w : writers) {
            if (!batch.isEmpty() && bytes + w.recordSize > BATCH_BYTES) {
                break;
            }
            batch.add(w);
            bytes += w.recordSize;
            forceSync |= w.forceSync;
        }
        IOException error = failure;
        leaderWriting = true;
        lock.unlock();
        try {
            if (error == null) {
                if (bytes > 0) {
                    writeRecords(bytes);
                }
                if (forceSync) {
                    syncer.syncCovering();
                }
            }
        } catch (IOException | RuntimeException | Error e) {
            // Anything else (e.g. no direct memory for a huge record) also poisons the segment rather
            // than leaving the batch in an unknown state.
            error = e instanceof IOException x ? x : new IOException("WAL writer failed", e);
        } finally {
            lock.lock();
            leaderWriting = false;
            if (freeWhenIdle) {
                freeBuffer(); // close() came while this leader wrote (the segment was poisoned meanwhile)
            }
        }
        if (error != null && failure == null) {
            failure = error;
            stats.failed();
        }
        for (WalWaiter w : batch) {
            writers.pollFirst();
            w.done = true;
            w.error = error == null ? null : (failure != null ? failure : error);
            if (w != self) {
                LockSupport.unpark(w.thread);
            }
        }
        batch.clear();
        WalWaiter next = writers.peekFirst();
        if (next != null) {
            LockSupport.unpark(next.thread);
        }
    }

    private IOException poisoned(IOException cause) {
        return new IOException("WAL segment " + path + " is unusable after a failed write or fsync", cause);
    }

    /** Writes the records of {@link #batch}, {@code bytes} in all, with one {@code write()}. */
    @SuppressWarnings(
            "NonAtomicVolatileUpdate") // one leader at a time, handed over under the lock; volatile for readers
    private void writeRecords(long bytes) throws IOException {
        long written = batchWriter.write(batch, bytes);
        writeCalls++;
        sizeBytes += written;
        syncer.written();
        stats.written(batchWriter.lastRecords(), written);
    }

    /** Marks the segment unusable after a failure outside the queue (a fsync by {@link WalSyncer}). */
    void poison(IOException e) {
        lock.lock();
        try {
            if (failure == null) {
                failure = e;
                stats.failed();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Whether {@link #close} has begun. */
    boolean isClosed() {
        lock.lock();
        try {
            return closed;
        } finally {
            lock.unlock();
        }
    }
}
