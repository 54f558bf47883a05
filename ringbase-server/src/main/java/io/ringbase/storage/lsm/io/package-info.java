/**
 * The file layer the LSM engine creates, opens, renames, deletes and fsyncs its files through
 * ({@link io.ringbase.storage.lsm.io.FileIo}), so that tests can inject disk faults (ENOSPC, EIO, EMFILE,
 * slow calls) and record the order of I/O operations. Such faults are classified by the API's
 * {@link io.ringbase.storage.DiskFault}. The default implementation ({@link FileIo#DISK}) hands
 * out plain {@link java.nio.channels.FileChannel}s: nothing is wrapped, so production pays nothing
 * per write. Implementations are thread-safe.
 */
package io.ringbase.storage.lsm.io;
