/**
 * The manifest: which SSTables are live and which WAL segments must be replayed. Switched atomically by writing a temporary file, fsync, rename and a directory fsync. Owns the manifest format and every file name of the LSM engine's data directory (the lock and snapshot directories every engine shares are {@link io.ringbase.storage.DataDirectory}'s).
 *
 * <p>Concurrency: stateless static methods; the engine serializes manifest writes (its {@code publishLock}).
 */
package io.ringbase.storage.lsm.manifest;
