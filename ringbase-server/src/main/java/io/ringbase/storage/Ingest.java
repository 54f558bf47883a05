package io.ringbase.storage;

import java.io.Closeable;
import java.io.IOException;

/**
 * A bulk load of entries in ascending key order ({@link Keys#ORDER}), such as a stream of another node's
 * keys: {@link #add} each, then {@link #finish()}. An engine may write them straight into a table of their
 * own, without its WAL or memtable (RocksDB's {@code IngestExternalFile}; Cassandra streams whole
 * SSTables): the LSM engine does. Entries are merged by version with what the engine holds, as every
 * write is, so an ingested entry never shadows a newer version written meanwhile. Not thread-safe: one
 * loader adds, then finishes or closes.
 */
public interface Ingest extends Closeable {

    /**
     * Adds {@code entry}, whose key must sort after the previous one's.
     *
     * @throws IllegalArgumentException if the key does not sort after the previous entry's; nothing was added
     * @throws IllegalStateException    after {@link #finish()} or {@link #close()}
     * @throws IOException              if writing failed; close the ingest then
     */
    void add(Entry entry) throws IOException;

    /** Entries added so far. */
    long entries();

    /**
     * Makes every added entry durable and visible to reads, then ends this ingest; with none added, only
     * ends it.
     *
     * @throws IOException if writing or publishing failed: none of the entries is then visible or kept
     */
    void finish() throws IOException;

    /** Abandons an unfinished ingest: what was added and not finished is dropped. No-op after {@link #finish()}. */
    @Override
    void close() throws IOException;

    /**
     * The ingest of an engine that has no table of its own to load into: each entry is {@link
     * StorageEngine#apply applied} as a write (WAL and memtable), and {@link #finish()} {@link
     * StorageEngine#flush flushes}. {@link #close()} cannot take back what was applied.
     */
    static Ingest byWrites(StorageEngine engine) {
        return new Ingest() {
            private long entries;
            private boolean ended;

            @Override
            public void add(Entry entry) throws IOException {
                if (ended) {
                    throw new IllegalStateException("the ingest has ended");
                }
                engine.apply(entry);
                entries++;
            }

            @Override
            public long entries() {
                return entries;
            }

            @Override
            public void finish() throws IOException {
                if (ended) {
                    throw new IllegalStateException("the ingest has ended");
                }
                ended = true;
                engine.flush();
            }

            @Override
            public void close() {
                ended = true;
            }
        };
    }
}
