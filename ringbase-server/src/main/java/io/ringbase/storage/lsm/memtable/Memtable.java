package io.ringbase.storage.lsm.memtable;

import static io.ringbase.storage.lsm.memtable.Nodes.NULL;

import io.ringbase.storage.Entry;
import io.ringbase.storage.EntryFormat;
import io.ringbase.storage.StorageEngine.CloseableIterator;
import io.ringbase.storage.lsm.lifetime.RefCount;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAccumulator;

/**
 * The in-memory sorted table in front of the SSTables, held entirely in native memory: a lock-free
 * skip list whose nodes, entries included, live in {@link Slabs} (the design of RocksDB's
 * {@code InlineSkipList} over its {@code Arena}; Pugh, "Skip Lists", 1990). The garbage collector sees a
 * few objects per memtable, whatever it holds.
 *
 * <p>This class holds the memtable's state and its API; the work is done by static helpers of the
 * package over that state, which the JIT inlines as if written here: {@link Nodes} (the node layout:
 * key, then newest first, with an 8-byte key prefix that decides most comparisons), {@link SkipList}
 * (searches and links), {@link BatchLink} (the interleaved searches of {@link #linkAll}),
 * {@link KeyFilter} (the key range and Bloom filter of point reads) and {@link EntryIterator}.
 *
 * <p>An overwrite adds a node before the older ones of its key (RocksDB keeps every version the same
 * way); readers take the first node of a key, and iteration skips the rest. A node is written in full
 * before one compare-and-set at level 0 publishes it.
 *
 * <p><b>Writing</b> is two steps so that the engine can make room before it appends to the WAL:
 * {@link #reserve} takes the node's bytes (or says the memtable is full), {@link #insert} fills and
 * links them. {@link #put} does both. A batch of writes is filled one by one ({@link #fill}) and linked
 * together ({@link #linkAll}), whose searches run interleaved so that their cache misses overlap.
 *
 * <p><b>Point reads</b> ({@link #find(byte[], long)}) first ask the key filter, which rules out most
 * keys the memtable does not hold without a search. A key's range and bits are set before its node is
 * linked, so a reader that can see a node sees them too.
 *
 * <p><b>Size</b> ({@link #sizeBytes()}) is exact: the slab bytes taken from the operating system. It
 * never passes the limit given at creation, except by one entry larger than the limit in an otherwise
 * empty memtable.
 *
 * <p><b>Lifetime.</b> A memtable starts with one reference, its creator's. Readers that may outlive
 * the creator's hold take one with {@link #retain()} and give it back with {@link #release()}; the
 * slabs are freed when the last reference goes, never while a reader or scan still uses them.
 *
 * <p>Concurrency: any number of threads may reserve, insert, read and iterate at once. Iterators are
 * weakly consistent (they see concurrent inserts or not, and never fail) and are for one thread each.
 */
public final class Memtable {

    /** {@link #reserve} could not make room: the memtable is full. */
    public static final long NO_ROOM = Slabs.NO_ROOM;

    private final Slabs slabs;
    private final long head;
    private final AtomicInteger maxHeight = new AtomicInteger(1);
    private final RefCount refs = new RefCount();
    private final LongAccumulator maxVersion = new LongAccumulator(Math::max, Long.MIN_VALUE);
    /**
     * Nodes linked. Added to by the inserting threads, several at once, so by atomic adds: a
     * read-modify-write of a plain or volatile field loses a concurrent add and can write back a stale
     * value, even 0 in a memtable holding entries. Not read by point reads ({@link #find(byte[], long)}).
     */
    private final AtomicInteger count = new AtomicInteger();
    // the key filter's state (KeyFilter)
    private final AtomicLong minPrefix = new AtomicLong(-1L); // unsigned: all ones is the largest
    private final AtomicLong maxPrefix = new AtomicLong(0L);
    private final MemorySegment filter;
    private final int filterMask;

    /**
     * A memtable that holds at most {@code limitBytes} of slabs (1 MiB each, or a quarter of the limit if
     * that is smaller).
     *
     * @throws IllegalArgumentException if {@code limitBytes} &lt; 4096
     */
    public Memtable(long limitBytes) {
        this(limitBytes, new AtomicLong());
    }

    /**
     * A memtable of {@code limitBytes}, as {@link #Memtable(long)}, whose slab bytes also count in
     * {@code ownerNativeBytes} until they are freed: an engine's figure for all of its memtables,
     * flushed ones still pinned by readers included.
     *
     * @throws IllegalArgumentException if {@code limitBytes} &lt; 4096
     */
    public Memtable(long limitBytes, AtomicLong ownerNativeBytes) {
        this.slabs = new Slabs(limitBytes, Slabs.slabBytesFor(limitBytes), ownerNativeBytes);
        this.head = slabs.allocate(Nodes.headBytes(), false);
        Nodes.initHead(slabs, head);
        int words = KeyFilter.words(limitBytes);
        this.filter = slabs.allocateSide(8L * words);
        this.filterMask = words - 1;
    }

    /**
     * Native bytes of the key filter of a memtable of {@code limitBytes}, beside its slabs: about
     * {@code limitBytes / 64} (256 KiB for 16 MiB), at most 32 MiB.
     */
    public static long keyFilterBytes(long limitBytes) {
        return 8L * KeyFilter.words(limitBytes);
    }

    /** The hash {@link #find(byte[], long)} takes: the one SSTable Bloom filters use. */
    public static long keyHash(byte[] key) {
        return KeyFilter.hash(key);
    }

    // ---------------------------------------------------------------- writes

    /** Bytes a node for an entry of these sizes takes, at most (the tallest node). */
    public static long maxNodeBytes(int keyLength, long valueLength) {
        return Nodes.maxNodeBytes(keyLength, valueLength);
    }

    /**
     * Takes room for a node holding an entry of the given sizes.
     *
     * @param valueLength the value's length in bytes; 0 for a tombstone
     * @return a reservation for {@link #insert}, or {@link #NO_ROOM} if the memtable is full
     */
    public long reserve(int keyLength, long valueLength) {
        int height = Nodes.randomHeight();
        long entrySize = EntryFormat.encodedSize(keyLength, valueLength);
        long node = slabs.allocate(Nodes.nodeBytes(height, entrySize), true);
        if (node != NO_ROOM) {
            Nodes.initNode(slabs, node, height, entrySize);
        }
        return node;
    }

    /**
     * Writes an entry into {@code reservation} (from {@link #reserve} with the same sizes) and links it,
     * unless the memtable already holds this entry or a newer one of its key. Copies {@code value}
     * straight into the slab.
     *
     * @param value the value bytes, or {@code null} for a tombstone
     * @param typed whether {@code value} starts with a {@code ContentType} prefix (flag bit 2 of the entry)
     * @return whether the entry was linked
     */
    public boolean insert(
            long reservation, byte[] key, long version, long expiresAtMs, MemorySegment value, boolean typed) {
        fill(reservation, key, version, expiresAtMs, value, typed);
        return linkCounted(reservation);
    }

    /**
     * The first half of {@link #insert}, for {@link #linkAll}: writes an entry into {@code reservation}
     * (from {@link #reserve} with the same sizes) and enters its key in the key filter, but does not
     * link it; readers do not see it until {@link #linkAll} links it.
     *
     * @param value the value bytes, or {@code null} for a tombstone
     * @throws IllegalArgumentException if the entry's size does not match the reservation
     */
    public void fill(long reservation, byte[] key, long version, long expiresAtMs, MemorySegment value) {
        fill(reservation, key, version, expiresAtMs, value, false);
    }

    /** {@link #fill(long, byte[], long, long, MemorySegment)} of a value that may be typed. */
    public void fill(long reservation, byte[] key, long version, long expiresAtMs, MemorySegment value, boolean typed) {
        // the entry is written here, not in a helper of Nodes: C2 inlines EntryFormat.write into this
        // method, but a helper wrapping it is compiled on its own first, too big to be inlined here
        MemorySegment s = slabs.slab(reservation);
        long entry = Nodes.entryOffset(slabs, reservation);
        long end = EntryFormat.write(s, entry, key, version, expiresAtMs, value, typed);
        long prefix = Nodes.prefix(key);
        Nodes.setPrefix(s, reservation, prefix);
        if (end - entry != Nodes.entrySize(s, reservation)) {
            throw new IllegalArgumentException("entry does not match its reservation");
        }
        // before the link, which publishes the node
        KeyFilter.add(minPrefix, maxPrefix, filter, filterMask, prefix, KeyFilter.hash(key));
        // before the link too: an entry that turns out redundant has a version at most its key's newer one
        maxVersion.accumulate(version);
    }

    /**
     * Links the nodes {@code nodes[from..to)}, each filled by {@link #fill}, as {@link #insert} would one
     * by one: a node is linked unless the memtable then holds its entry or a newer one of its key. The
     * searches for their places run interleaved so that their cache misses overlap ({@link BatchLink}).
     *
     * @return how many of the nodes were linked
     */
    public int linkAll(long[] nodes, int from, int to) {
        if (to - from == 1) {
            return linkCounted(nodes[from]) ? 1 : 0;
        }
        int linked = BatchLink.linkAll(slabs, head, maxHeight, nodes, from, to);
        if (linked > 0) { // a batch of duplicates only leaves the count alone
            count.getAndAdd(linked);
        }
        return linked;
    }

    /** Links one filled node and counts it if linked. */
    private boolean linkCounted(long node) {
        if (!SkipList.link(slabs, head, maxHeight, node)) {
            return false;
        }
        count.getAndIncrement();
        return true;
    }

    /**
     * Stores {@code entry} unless the memtable already holds it or a newer version of its key.
     *
     * @return {@code false} if the memtable is full (nothing stored), else {@code true}
     */
    public boolean put(Entry entry) {
        byte[] value = entry.value();
        long reservation = reserve(entry.key().length, value == null ? 0 : value.length);
        if (reservation == NO_ROOM) {
            return false;
        }
        insert(
                reservation,
                entry.key(),
                entry.version(),
                entry.expiresAtMs(),
                value == null ? null : MemorySegment.ofArray(value),
                entry.typed());
        return true;
    }

    // ---------------------------------------------------------------- reads

    /**
     * The node of the newest entry of {@code key} (possibly a tombstone or expired), or 0 if none. Its
     * entry is at {@link #entryOffset} of {@link #segment}.
     */
    public long find(byte[] key) {
        return find(key, keyHash(key));
    }

    /**
     * As {@link #find(byte[])}, for a key whose {@link #keyHash} the caller has already computed: the
     * key filter ({@link KeyFilter}) answers most reads of keys the memtable does not hold without
     * searching the skip list.
     */
    public long find(byte[] key, long keyHash) {
        // no emptiness test: an empty memtable's key range (smallest prefix all ones, largest zero) rules
        // out every key, and a key is in the range before its node is linked
        long probePrefix = Nodes.prefix(key);
        if (KeyFilter.rulesOut(minPrefix, maxPrefix, filter, filterMask, probePrefix, keyHash)) {
            return NULL;
        }
        long node = SkipList.seek(slabs, head, maxHeight, key, probePrefix);
        if (node != NULL && Nodes.compareToKey(slabs, node, key, probePrefix) == 0) {
            return node;
        }
        return NULL;
    }

    /** The newest entry of {@code key} (possibly a tombstone or expired), decoded, or {@code null}. */
    public Entry get(byte[] key) {
        long node = find(key);
        return node == NULL ? null : Nodes.decode(slabs, node);
    }

    /** False if no key of this hash was inserted; true if one may have been (the key filter). */
    boolean filterMightContain(long keyHash) {
        return KeyFilter.mightContain(filter, filterMask, keyHash);
    }

    /** The slab holding the node {@code node}. */
    public MemorySegment segment(long node) {
        return slabs.slab(node);
    }

    /** Offset in {@link #segment} of the encoded entry of node {@code node}. */
    public long entryOffset(long node) {
        return Nodes.entryOffset(slabs, node);
    }

    /**
     * Entries with {@code start <= key < end} in key order, the newest of each key, decoded;
     * {@code end == null} means no upper bound, {@code start == null} no lower bound. The caller must
     * hold a reference ({@link #retain}) for as long as it iterates.
     */
    public CloseableIterator<Entry> iterator(byte[] start, byte[] end) {
        return new EntryIterator(slabs, head, maxHeight, start, end);
    }

    /**
     * Calls {@code visitor} with the newest entry of every key, in key order, as a segment and the
     * offset of the encoded entry in it; for flushing without decoding. Not for a memtable that still
     * takes writes.
     */
    public void forEachNewest(EncodedEntryVisitor visitor) throws java.io.IOException {
        EntryIterator.forEachNewest(slabs, head, visitor);
    }

    /** Receives encoded entries ({@link EntryFormat}) from {@link #forEachNewest}. */
    @FunctionalInterface
    public interface EncodedEntryVisitor {
        void accept(MemorySegment segment, long offset) throws java.io.IOException;
    }

    /** Slab bytes held: exact, see the class comment. */
    public long sizeBytes() {
        return slabs.bytes();
    }

    /** The limit given at construction, bytes. */
    public long limitBytes() {
        return slabs.limitBytes();
    }

    /**
     * Number of entries linked, versions of the same key counted apart; an upper bound of the keys.
     * Exact once the inserts are done (all that returned before this call are counted).
     */
    public int count() {
        return count.get();
    }

    public boolean isEmpty() {
        return Nodes.next(slabs, head, 0) == NULL;
    }

    /** Largest version put so far, or {@link Long#MIN_VALUE} if empty. */
    public long maxVersion() {
        return maxVersion.get();
    }

    /** Slab bytes held by all memtables of this process that are not freed yet. */
    public static long liveNativeBytes() {
        return Slabs.liveBytes();
    }

    // ---------------------------------------------------------------- lifetime

    /**
     * Takes a reference, unless the memtable is already freed.
     *
     * @return {@code false} if the last reference is gone (the slabs are freed or about to be)
     */
    public boolean retain() {
        return refs.tryRetain();
    }

    /** Gives a reference back; the last one frees the slabs. */
    public void release() {
        if (refs.release("memtable")) {
            slabs.free();
        }
    }

    /** Whether the slabs have been freed (for tests). */
    public boolean isFreed() {
        return slabs.isFreed();
    }
}
