package io.ringbase.storage.lsm.memtable;

import io.ringbase.storage.Entry;
import io.ringbase.storage.EntryFormat;
import io.ringbase.storage.StorageEngine.CloseableIterator;
import io.ringbase.storage.lsm.lifetime.RefCount;
import io.ringbase.hash.XxHash64;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.NoSuchElementException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAccumulator;

/**
 * The in-memory sorted table in front of the SSTables, held entirely in native memory: a lock-free
 * skip list whose nodes, entries included, live in {@link Slabs} (the design of RocksDB's
 * {@code InlineSkipList} over its {@code Arena}; Pugh, "Skip Lists", 1990). The garbage collector sees a
 * few objects per memtable, whatever it holds.
 *
 * <p><b>Node layout</b> (8-byte aligned, native byte order):
 * <pre>
 * +0        u8      height h (1..{@value #MAX_HEIGHT})
 * +4        i32     size of the encoded entry
 * +8        u64     key prefix: the key's first 8 bytes, big-endian, zero-padded
 * +16       i64[h]  next node at each level (an address in the slabs; 0 = none)
 * +16+8h    entry   the entry in {@link EntryFormat} encoding (as in the WAL and SSTables)
 * </pre>
 * The key prefix decides most comparisons of a search with one unsigned compare of two longs, without
 * touching the entry (a full key comparison through {@code MemorySegment.mismatch} on every step of a
 * search was a fifth of a PUT's CPU).
 * Nodes are ordered by key ({@link io.ringbase.storage.Keys#ORDER}), then newest first
 * ({@link Entry#compareNewness}). An overwrite adds a node before the older ones of its key (RocksDB
 * keeps every version the same way); readers take the first node of a key, and iteration skips the
 * rest. A node is written in full before one compare-and-set at level 0 publishes it.
 *
 * <p><b>Writing</b> is two steps so that the engine can make room before it appends to the WAL:
 * {@link #reserve} takes the node's bytes (or says the memtable is full), {@link #insert} fills and
 * links them. {@link #put} does both. A batch of writes is filled one by one ({@link #fill}) and linked
 * together ({@link #linkAll}), whose searches run interleaved so that their cache misses overlap.
 *
 * <p><b>Key filter</b> (for point reads; scans use the skip list). Beside the skip list a memtable
 * keeps, in native memory from its arena and freed with its slabs:
 * <ul>
 *   <li>the range of its keys' 8-byte prefixes (smallest and largest), which answers a read of a key
 *       outside it at once: keys written in order (sequence numbers, timestamps) leave a memtable
 *       holding one run of keys;
 *   <li>a Bloom filter of its keys (RocksDB's memtable Bloom filter, {@code memtable_whole_key_filtering}):
 *       one 64-bit word per key, four bits set in it, one bit per 8 bytes of the limit (at least 7 bits
 *       per key, since a node takes at least 56 bytes).
 * </ul>
 * A read of a key the memtable does not hold, most reads under random keys, skips the search of the
 * skip list (about {@code 2 log4(n)} nodes, each a cache miss). A key's range and bits are set before
 * its node is linked, so a reader that can see a node sees them too. The key's hash is
 * {@link XxHash64} of its bytes, the hash SSTable Bloom filters use, so a read hashes its key once for
 * the memtables and the tables ({@link #find(byte[], long)}). (A hash index of the keys' newest nodes
 * was tried as well: 7 times faster reads of keys the memtable holds, but a cache miss and a CAS more
 * per write, 3.5-5.6% fewer closed-loop PUTs.)
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

    /** Most levels of a node: with branching 4, enough for about 16 million entries. */
    static final int MAX_HEIGHT = 12;
    /** One in this many nodes of a level also gets the next level. */
    private static final int BRANCHING = 4;

    /** {@link #reserve} could not make room: the memtable is full. */
    public static final long NO_ROOM = Slabs.NO_ROOM;

    private static final long NULL = 0;
    private static final int OFF_HEIGHT = 0;
    private static final int OFF_ENTRY_SIZE = 4;
    private static final int OFF_PREFIX = 8;
    private static final int OFF_NEXT = 16;
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    /** Bytes of memtable limit per bit of the key filter. */
    private static final int LIMIT_BYTES_PER_FILTER_BIT = 8;

    /** Longs of one search's place: predecessor and successor at each level. */
    private static final int SPLICE_LONGS = 2 * MAX_HEIGHT;
    /** Per-thread search state of an insert: predecessor and successor at each level. */
    private static final ThreadLocal<long[]> SPLICE = ThreadLocal.withInitial(() -> new long[SPLICE_LONGS]);
    /** Per-thread search state of {@link #linkAll}. */
    private static final ThreadLocal<BatchSearch> BATCH = ThreadLocal.withInitial(BatchSearch::new);

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
    // the key filter (class comment)
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
        this.head = slabs.allocate(OFF_NEXT + 8L * MAX_HEIGHT, false);
        slab(head).set(ValueLayout.JAVA_BYTE, Slabs.offset(head) + OFF_HEIGHT, (byte) MAX_HEIGHT);
        int words = filterWords(limitBytes);
        this.filter = slabs.allocateSide(8L * words);
        this.filterMask = words - 1;
    }

    private static int filterWords(long limitBytes) {
        return (int) Long.highestOneBit(Math.clamp(limitBytes / LIMIT_BYTES_PER_FILTER_BIT / 64, 64, 1 << 22));
    }

    /**
     * Native bytes of the key filter of a memtable of {@code limitBytes}, beside its slabs: about
     * {@code limitBytes / 64} (256 KiB for 16 MiB), at most 32 MiB.
     */
    public static long keyFilterBytes(long limitBytes) {
        return 8L * filterWords(limitBytes);
    }

    /** The hash {@link #find(byte[], long)} takes: the one SSTable Bloom filters use. */
    public static long keyHash(byte[] key) {
        return XxHash64.hash(key);
    }

    // ---------------------------------------------------------------- writes

    /** Bytes a node for an entry of these sizes takes, at most (the tallest node). */
    public static long maxNodeBytes(int keyLength, long valueLength) {
        return Slabs.align(OFF_NEXT + 8L * MAX_HEIGHT + EntryFormat.encodedSize(keyLength, valueLength));
    }

    /**
     * Takes room for a node holding an entry of the given sizes.
     *
     * @param valueLength the value's length in bytes; 0 for a tombstone
     * @return a reservation for {@link #insert}, or {@link #NO_ROOM} if the memtable is full
     */
    public long reserve(int keyLength, long valueLength) {
        int height = randomHeight();
        long entrySize = EntryFormat.encodedSize(keyLength, valueLength);
        long node = slabs.allocate(OFF_NEXT + 8L * height + entrySize, true);
        if (node != NO_ROOM) {
            MemorySegment s = slab(node);
            long o = Slabs.offset(node);
            s.set(ValueLayout.JAVA_BYTE, o + OFF_HEIGHT, (byte) height);
            s.set(ValueLayout.JAVA_INT_UNALIGNED, o + OFF_ENTRY_SIZE, (int) entrySize);
        }
        return node;
    }

    /**
     * Writes an entry into {@code reservation} (from {@link #reserve} with the same sizes) and links it,
     * unless the memtable already holds this entry or a newer one of its key. Copies {@code value}
     * straight into the slab.
     *
     * @param value the value bytes, or {@code null} for a tombstone
     * @return whether the entry was linked
     */
    public boolean insert(long reservation, byte[] key, long version, long expiresAtMs, MemorySegment value) {
        fill(reservation, key, version, expiresAtMs, value);
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
        MemorySegment s = slab(reservation);
        long entry = entryOffset(reservation);
        long end = EntryFormat.write(s, entry, key, version, expiresAtMs, value);
        s.set(ValueLayout.JAVA_LONG, Slabs.offset(reservation) + OFF_PREFIX, prefix(key));
        if (end - entry != s.get(ValueLayout.JAVA_INT_UNALIGNED, Slabs.offset(reservation) + OFF_ENTRY_SIZE)) {
            throw new IllegalArgumentException("entry does not match its reservation");
        }
        index(prefix(key), keyHash(key)); // before the link, which publishes the node
        // before the link too: an entry that turns out redundant has a version at most its key's newer one
        maxVersion.accumulate(version);
    }

    /**
     * Links the nodes {@code nodes[from..to)}, each filled by {@link #fill}, as {@link #insert} would one
     * by one: a node is linked unless the memtable then holds its entry or a newer one of its key.
     *
     * <p>The searches for their places run interleaved, one step of each in turn, so that the cache
     * misses of different searches overlap instead of following one another: each step of a skip-list
     * search waits for one node from memory, and the steps of one search depend on each other, but
     * those of different searches do not. This is group prefetching over pointer chains (Chen, Ailamaki,
     * Gibbons and Mowry, "Improving hash join performance through prefetching", ICDE 2004; Kocberber
     * et al., "Asynchronous memory access chaining", VLDB 2015), done by the CPU's out-of-order window
     * since Java has no prefetch instruction. The places found are checked when each node is linked:
     * a node linked meanwhile next to one of them fails that link's compare-and-set, and that level is
     * searched again from the predecessor found, as for concurrent writers.
     *
     * @return how many of the nodes were linked
     */
    public int linkAll(long[] nodes, int from, int to) {
        int n = to - from;
        if (n == 1) {
            return linkCounted(nodes[from]) ? 1 : 0;
        }
        BatchSearch search = BATCH.get().sized(n);
        int top = maxHeight.get();
        for (int i = 0; i < n; i++) {
            long node = nodes[from + i];
            top = Math.max(top, raiseMaxHeight(height(node)));
            search.node[i] = node;
        }
        for (int i = 0; i < n; i++) {
            search.x[i] = head;
            search.level[i] = top - 1;
        }
        long[] splices = search.splices;
        int searching = n;
        while (searching > 0) {
            for (int i = 0; i < n; i++) {
                int level = search.level[i];
                if (level < 0) {
                    continue;
                }
                long next = searchStep(search.x[i], search.node[i], level, splices, i * SPLICE_LONGS);
                if (next != NULL) {
                    search.x[i] = next;
                } else {
                    search.level[i] = level - 1;
                    if (level == 0) {
                        searching--;
                    }
                }
            }
        }
        int linked = 0;
        for (int i = 0; i < n; i++) {
            if (linkAt(search.node[i], splices, i * SPLICE_LONGS)) {
                linked++;
            }
        }
        if (linked > 0) { // a batch of duplicates only leaves the count alone
            count.getAndAdd(linked);
        }
        return linked;
    }

    /** Links one filled node and counts it if linked. */
    private boolean linkCounted(long node) {
        if (!link(node)) {
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
        insert(reservation, entry.key(), entry.version(), entry.expiresAtMs(),
                value == null ? null : MemorySegment.ofArray(value));
        return true;
    }

    private static int randomHeight() {
        int r = ThreadLocalRandom.current().nextInt();
        int height = 1;
        while (height < MAX_HEIGHT && (r & (BRANCHING - 1)) == 0) {
            height++;
            r >>>= 2;
        }
        return height;
    }

    /** Enters a key whose node is not linked yet in the key filter: its prefix's range and its bits. */
    private void index(long prefix, long hash) {
        for (long min = minPrefix.get(); Long.compareUnsigned(prefix, min) < 0; min = minPrefix.get()) {
            if (minPrefix.compareAndSet(min, prefix)) {
                break;
            }
        }
        for (long max = maxPrefix.get(); Long.compareUnsigned(prefix, max) > 0; max = maxPrefix.get()) {
            if (maxPrefix.compareAndSet(max, prefix)) {
                break;
            }
        }
        long bits = filterBits(hash);
        long word = filterWord(hash);
        if (((long) LONG.getAcquire(filter, word) & bits) != bits) {
            LONG.getAndBitwiseOr(filter, word, bits);
        }
    }

    /** Offset of the filter word of a key's hash: its upper 32 bits pick the word. */
    private long filterWord(long hash) {
        return 8L * ((int) (hash >>> 32) & filterMask);
    }

    /** The four bits of a key's hash in its word: four 6-bit fields of its lower 32 bits. */
    private static long filterBits(long hash) {
        return 1L << hash | 1L << (hash >>> 6) | 1L << (hash >>> 12) | 1L << (hash >>> 18);
    }

    /** Links a filled node at every level of its height; false if a newer or equal entry was there. */
    private boolean link(long node) {
        int top = raiseMaxHeight(height(node));
        long[] splice = SPLICE.get();
        long x = head;
        for (int level = top - 1; level >= 0; level--) {
            x = findSplice(x, node, level, splice, 0);
        }
        return linkAt(node, splice, 0);
    }

    /** Makes the list at least {@code height} levels tall; returns its height. */
    private int raiseMaxHeight(int height) {
        int top = maxHeight.get();
        while (height > top) {
            if (maxHeight.compareAndSet(top, height)) {
                return height;
            }
            top = maxHeight.get();
        }
        return top;
    }

    /**
     * Links {@code node} at the place {@code splices[base..base + 2 * MAX_HEIGHT)} records (predecessor
     * and successor at each level), searching a level again where a concurrent link moved it.
     */
    private boolean linkAt(long node, long[] splices, int base) {
        if (isDuplicate(node, splices, base)) {
            return false;
        }
        int height = height(node);
        for (int level = 0; level < height; level++) {
            while (true) {
                long prev = splices[base + level];
                long next = splices[base + MAX_HEIGHT + level];
                setNext(node, level, next);
                if (casNext(prev, level, next, node)) {
                    break;
                }
                // someone linked between prev and next: look again
                findSplice(prev, node, level, splices, base);
                if (level == 0 && isDuplicate(node, splices, base)) {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * From {@code x} at {@code level}: records the last node before {@code node} and its successor in
     * {@code splices} from {@code base}, and returns that node.
     */
    private long findSplice(long x, long node, int level, long[] splices, int base) {
        for (long next = searchStep(x, node, level, splices, base); next != NULL;
                next = searchStep(x, node, level, splices, base)) {
            x = next;
        }
        return x;
    }

    /**
     * One step of the search for {@code node}'s place at {@code level}, standing on {@code x}: the next
     * node if it sorts before {@code node} (move there), else 0, with {@code x} and its successor recorded
     * as the place at that level in {@code splices} from {@code base}.
     */
    private long searchStep(long x, long node, int level, long[] splices, int base) {
        long next = next(x, level);
        if (next != NULL && compareNodes(next, node) < 0) {
            return next;
        }
        splices[base + level] = x;
        splices[base + MAX_HEIGHT + level] = next;
        return NULL;
    }

    /** Whether the level-0 neighbours of {@code node}'s place make it redundant. */
    private boolean isDuplicate(long node, long[] splices, int base) {
        long prev = splices[base];
        if (prev != head && sameKey(prev, node)) {
            return true; // a newer (or equal) version of the key sorts before it
        }
        long next = splices[base + MAX_HEIGHT];
        return next != NULL && compareNodes(next, node) == 0;
    }

    /** Per-thread state of {@link #linkAll}: the searches of one batch, grown to the largest batch. */
    private static final class BatchSearch {
        long[] node = new long[0];
        long[] x = new long[0];
        int[] level = new int[0];
        long[] splices = new long[0];

        BatchSearch sized(int n) {
            if (node.length < n) {
                node = new long[n];
                x = new long[n];
                level = new int[n];
                splices = new long[n * SPLICE_LONGS];
            }
            return this;
        }
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
     * key filter (class comment) answers most reads of keys the memtable does not hold without
     * searching the skip list.
     */
    public long find(byte[] key, long keyHash) {
        // no emptiness test: an empty memtable's key range (smallest prefix all ones, largest zero) rules
        // out every key, and a key is in the range before its node is linked
        long probePrefix = prefix(key);
        if (Long.compareUnsigned(probePrefix, minPrefix.get()) < 0 || Long.compareUnsigned(probePrefix, maxPrefix.get()) > 0
                || !filterMightContain(keyHash)) {
            return NULL;
        }
        long node = seek(key, probePrefix);
        if (node != NULL && compareToKey(node, key, probePrefix) == 0) {
            return node;
        }
        return NULL;
    }

    /** The newest entry of {@code key} (possibly a tombstone or expired), decoded, or {@code null}. */
    public Entry get(byte[] key) {
        long node = find(key);
        return node == NULL ? null : decode(node);
    }

    /** False if no key of this hash was inserted; true if one may have been (the key filter). */
    boolean filterMightContain(long keyHash) {
        long bits = filterBits(keyHash);
        return ((long) LONG.getAcquire(filter, filterWord(keyHash)) & bits) == bits;
    }

    /** The slab holding the node {@code node}. */
    public MemorySegment segment(long node) {
        return slab(node);
    }

    /** Offset in {@link #segment} of the encoded entry of node {@code node}. */
    public long entryOffset(long node) {
        return Slabs.offset(node) + OFF_NEXT + 8L * height(node);
    }

    /** First node whose key is &ge; {@code key} (the newest of that key), or 0. */
    private long seek(byte[] key, long keyPrefix) {
        long x = head;
        long next = NULL;
        for (int level = maxHeight.get() - 1; level >= 0; level--) {
            while (true) {
                next = next(x, level);
                if (next != NULL && compareToKey(next, key, keyPrefix) < 0) {
                    x = next;
                } else {
                    break;
                }
            }
        }
        // the successor of x that compared >= key, not a second read of x's successor: a node linked
        // after x meanwhile (a smaller key than this one) would be returned instead of the key's node
        return next;
    }

    /**
     * Entries with {@code start <= key < end} in key order, the newest of each key, decoded;
     * {@code end == null} means no upper bound, {@code start == null} no lower bound. The caller must
     * hold a reference ({@link #retain}) for as long as it iterates.
     */
    public CloseableIterator<Entry> iterator(byte[] start, byte[] end) {
        return new EntryIterator(start, end);
    }

    /**
     * Calls {@code visitor} with the newest entry of every key, in key order, as a segment and the
     * offset of the encoded entry in it; for flushing without decoding. Not for a memtable that still
     * takes writes.
     */
    public void forEachNewest(EncodedEntryVisitor visitor) throws java.io.IOException {
        long previous = NULL;
        for (long n = next(head, 0); n != NULL; n = next(n, 0)) {
            if (previous == NULL || !sameKey(previous, n)) {
                visitor.accept(slab(n), entryOffset(n));
            }
            previous = n;
        }
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
        return next(head, 0) == NULL;
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

    // ---------------------------------------------------------------- nodes

    private MemorySegment slab(long node) {
        return slabs.slab(node);
    }

    private int height(long node) {
        return slab(node).get(ValueLayout.JAVA_BYTE, Slabs.offset(node) + OFF_HEIGHT);
    }

    private long next(long node, int level) {
        return (long) LONG.getAcquire(slab(node), Slabs.offset(node) + OFF_NEXT + 8L * level);
    }

    private void setNext(long node, int level, long next) {
        LONG.setRelease(slab(node), Slabs.offset(node) + OFF_NEXT + 8L * level, next);
    }

    private boolean casNext(long node, int level, long expected, long next) {
        return LONG.compareAndSet(slab(node), Slabs.offset(node) + OFF_NEXT + 8L * level, expected, next);
    }

    private long prefixOf(long node) {
        return slab(node).get(ValueLayout.JAVA_LONG, Slabs.offset(node) + OFF_PREFIX);
    }

    static long prefix(byte[] key) {
        return EntryFormat.keyPrefix(key);
    }

    static long prefix(MemorySegment key) {
        return EntryFormat.keyPrefix(key);
    }

    /** Node's key against a search key (with its prefix): negative if the node's sorts first. */
    private int compareToKey(long node, byte[] key, long keyPrefix) {
        long p = prefixOf(node);
        if (p != keyPrefix) {
            return Long.compareUnsigned(p, keyPrefix);
        }
        return EntryFormat.compareKey(slab(node), entryOffset(node), key, keyPrefix);
    }

    private boolean sameKey(long a, long b) {
        return prefixOf(a) == prefixOf(b)
                && EntryFormat.compareKeys(slab(a), entryOffset(a), slab(b), entryOffset(b)) == 0;
    }

    /** Node order: key ascending, then newest first. */
    private int compareNodes(long a, long b) {
        long pa = prefixOf(a);
        long pb = prefixOf(b);
        if (pa != pb) {
            return Long.compareUnsigned(pa, pb);
        }
        MemorySegment sa = slab(a);
        MemorySegment sb = slab(b);
        long ea = entryOffset(a);
        long eb = entryOffset(b);
        int c = EntryFormat.compareKeys(sa, ea, sb, eb);
        return c != 0 ? c : -EntryFormat.compareNewness(sa, ea, sb, eb);
    }

    private Entry decode(long node) {
        MemorySegment s = slab(node);
        long e = entryOffset(node);
        return EntryFormat.read(s, e, e + s.get(ValueLayout.JAVA_INT_UNALIGNED, Slabs.offset(node) + OFF_ENTRY_SIZE));
    }

    /** Newest entry per key in [start, end), decoded one at a time. */
    private final class EntryIterator implements CloseableIterator<Entry> {
        private final byte[] end;
        private long node;
        private long previous = NULL;

        EntryIterator(byte[] start, byte[] end) {
            this.end = end;
            this.node = start == null ? Memtable.this.next(head, 0) : seek(start, prefix(start));
            skipToValid();
        }

        private void skipToValid() {
            while (node != NULL && previous != NULL && sameKey(previous, node)) {
                node = Memtable.this.next(node, 0);
            }
            if (node != NULL && end != null && EntryFormat.compareKey(slab(node), entryOffset(node), end) >= 0) {
                node = NULL;
            }
        }

        @Override
        public boolean hasNext() {
            return node != NULL;
        }

        @Override
        public Entry next() {
            if (node == NULL) {
                throw new NoSuchElementException();
            }
            Entry e = decode(node);
            previous = node;
            node = Memtable.this.next(node, 0);
            skipToValid();
            return e;
        }

        @Override
        public void close() {
            node = NULL;
        }
    }
}
