/**
 * The memtable: a concurrent sorted map of the newest entry per key with byte-size accounting, in
 * native memory (an off-heap skip list over slabs), with a key filter (key range and Bloom filter) that
 * lets point reads skip it. Mutable while active, read-only once switched out for flushing.
 *
 * <p>Concurrency: lock-free; any number of writers and readers at once, a node being linked only once
 * filled. Its native memory is reference counted: freed when the last view that holds it lets go.
 */
package io.ringbase.storage.lsm.memtable;
