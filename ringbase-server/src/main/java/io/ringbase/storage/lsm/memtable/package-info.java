/**
 * The memtable: a concurrent sorted map of the newest entry per key with byte-size accounting, in
 * native memory (an off-heap skip list over slabs), with a key filter (key range and Bloom filter) that
 * lets point reads skip it. Mutable while active, read-only once switched out for flushing.
 *
 * <p>{@link io.ringbase.storage.lsm.memtable.Memtable} is the API and holds the state; {@code Slabs}
 * is its native memory; {@code Nodes}, {@code SkipList}, {@code BatchLink}, {@code KeyFilter} and
 * {@code EntryIterator} are the node layout, the searches and links, the batched link, the key filter
 * and the iteration, as static methods (the iterator apart) over the memtable's state.
 *
 * <p>Concurrency: lock-free; any number of writers and readers at once, a node being linked only once
 * filled. Its native memory is reference counted: freed when the last view that holds it lets go. Who
 * calls what:
 * <ul>
 *   <li><b>writers</b>, any number of threads at once (the engine's writes, under the read side of its
 *       memtable-switch lock; at open, the one recovery thread): {@code reserve}, {@code insert},
 *       {@code fill}, {@code linkAll}, {@code put}, on the active memtable only. A reservation and its
 *       fill belong to the thread that took it; the node is published by the compare-and-set that links
 *       it at level 0, after its entry, its key's range and filter bits and the largest version are
 *       written. The list's height, the key range and the count change by compare-and-set or atomic
 *       add, never by a read-modify-write of a plain field.
 *   <li><b>readers</b>, any number of threads at once (point reads, scans, compaction's tombstone
 *       checks), on the active memtable and switched-out ones, holding a reference through the engine's
 *       view: {@code find}, {@code get}, {@code segment}, {@code entryOffset}, {@code iterator},
 *       {@code maxVersion}, {@code sizeBytes}. They follow links with acquire reads and take no lock; an
 *       iterator is for one thread.
 *   <li><b>the flush thread</b>, on a switched-out memtable, which takes no more writes:
 *       {@code forEachNewest}, {@code count}, {@code sizeBytes}.
 *   <li><b>anyone holding a view</b>: {@code retain} and {@code release}; the last release frees the
 *       slabs and the key filter.
 * </ul>
 */
package io.ringbase.storage.lsm.memtable;
