package io.ringbase.storage.lsm.sstable;

import io.ringbase.storage.CorruptionException;
import io.ringbase.storage.Entry;
import io.ringbase.storage.KeyFilter;
import io.ringbase.storage.StorageEngine;
import java.io.IOException;
import org.jspecify.annotations.Nullable;

/**
 * The data and index sections of one SSTable as its format version lays them out: {@link V1Table}
 * (records and an exact index) or {@link BlockTable} (blocks and a sparse index). {@link SstableReader}
 * does the rest (the mapping, the footer, the Bloom filter, the lifetime) the same way for both.
 */
sealed interface TableBody permits V1Table, BlockTable {

    /**
     * Finds the entry of {@code key} (the Bloom filter already passed it) and points {@code into} at it.
     *
     * @return whether the table has an entry for the key
     * @throws CorruptionException if what the lookup read is damaged
     * @throws IOException          if a read failed ({@code pread}: EIO...)
     */
    boolean locate(byte[] key, long keyPrefix, EntryLocation into) throws IOException;

    /** See {@link SstableReader#iterator(byte[], byte[], KeyFilter)}. */
    StorageEngine.CloseableIterator<Entry> iterator(byte[] start, byte[] end, @Nullable KeyFilter keys);

    /** See {@link SstableReader#prefetch}. */
    default void prefetch(byte[] start) {}

    /** See {@link SstableReader#cursor}. */
    SstableReader.Cursor cursor();
}
