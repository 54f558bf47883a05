/**
 * The memtable: a concurrent sorted map of the newest entry per key with byte-size accounting. Mutable while active, read-only once switched out for flushing.
 */
package io.ringbase.storage.memtable;
