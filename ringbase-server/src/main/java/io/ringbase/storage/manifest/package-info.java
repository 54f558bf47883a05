/**
 * The manifest: which SSTables are live and which WAL segments must be replayed. Switched atomically by writing a temporary file, fsync, rename and a directory fsync. Owns the manifest format and every file name of the data directory.
 */
package io.ringbase.storage.manifest;
