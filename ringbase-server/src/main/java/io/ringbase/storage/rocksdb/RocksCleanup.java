package io.ringbase.storage.rocksdb;

import io.ringbase.storage.KeyFilter;
import java.io.IOException;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link RocksDbEngine#cleanup}: flushes, removes every key a {@link KeyFilter} rejects with RocksDB's own
 * delete, which is local to this node (none of our tombstone entries, nothing anti-entropy would spread),
 * then compacts the whole key space ({@code CompactRange}) so the deletes drop out of the SST files with
 * what they shadow and the space comes back.
 *
 * <p>One pass of an iterator over the {@code default} column family, which reads an implicit snapshot
 * taken at its start and does not fill the block cache; the deletes go out in write batches of at most
 * {@value #BATCH_KEYS} keys or {@value #BATCH_BYTES} bytes, through the engine's WAL write options, so
 * memory stays bounded. A batch is written without the key's stripe lock: a write that races with the
 * cleanup for a rejected key may survive it or be removed (the contract allows either). RocksJava cannot
 * run a compaction filter written in Java, which would have been the other way.
 */
final class RocksCleanup {

    private static final Logger log = LoggerFactory.getLogger(RocksDbEngine.class);

    /** At most this many deletes per write batch. */
    static final int BATCH_KEYS = 1024;
    /** At most about this many bytes of deletes (keys and record headers) per write batch. */
    static final long BATCH_BYTES = 1L << 20;

    private RocksCleanup() {}

    /**
     * Runs a cleanup of {@code engine} with {@code keep} and logs one INFO line.
     *
     * @return the number of keys deleted
     * @throws IOException if RocksDB failed, the engine closed, or {@code keep} threw (the cause); the
     *                     deletes written until then stay
     */
    static long run(RocksDbEngine engine, KeyFilter keep) throws IOException {
        Objects.requireNonNull(keep, "keep");
        long started = System.nanoTime();
        engine.flush(); // so that the bytes before count what the memtables held
        long deleted = 0;
        long bytesBefore;
        long bytesAfter;
        engine.enter();
        try (ReadOptions ro = new ReadOptions().setFillCache(false);
                RocksIterator it = engine.db.newIterator(engine.data, ro);
                WriteBatch batch = new WriteBatch()) {
            bytesBefore = engine.sstBytes();
            for (it.seekToFirst(); it.isValid(); it.next()) {
                if (engine.closing) {
                    throw new IOException("storage engine is closing; cleanup stopped after " + deleted + " keys");
                }
                byte[] key = it.key();
                if (!keepOrFail(keep, key)) {
                    batch.delete(engine.data, key);
                    deleted++;
                    if (batch.count() >= BATCH_KEYS || batch.getDataSize() >= BATCH_BYTES) {
                        engine.db.write(engine.writeOptions, batch);
                        batch.clear();
                    }
                }
            }
            it.status();
            if (batch.count() > 0) {
                engine.db.write(engine.writeOptions, batch);
            }
            engine.db.compactRange(engine.data);
            bytesAfter = engine.sstBytes();
        } catch (RocksDBException e) {
            engine.diskErrors.increment();
            throw new IOException("RocksDB cleanup failed: " + RocksDbEngine.describe(e), e);
        } finally {
            engine.exit();
        }
        log.info(
                "cleanup removed the entries of {} keys this node no longer replicates: SST files {} bytes before, "
                        + "{} bytes after, in {} ms",
                deleted,
                bytesBefore,
                bytesAfter,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
        return deleted;
    }

    private static boolean keepOrFail(KeyFilter keep, byte[] key) throws IOException {
        try {
            return keep.keep(key);
        } catch (RuntimeException e) {
            throw new IOException("cleanup failed: the key filter threw", e);
        }
    }
}
