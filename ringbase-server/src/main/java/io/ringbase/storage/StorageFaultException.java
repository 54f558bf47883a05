package io.ringbase.storage;

import java.io.IOException;

/**
 * A write the engine could not make durable because the disk failed it: ENOSPC, EIO, EMFILE or another
 * I/O error at a WAL append or fsync, a WAL segment creation, or while flushing had fallen behind
 * because SSTable writes or manifest publishes fail. Nothing of the write was acknowledged; the engine
 * stays open, serves reads, and heals by itself once the disk does (a fresh WAL segment, retried
 * flushes). The HTTP layer answers {@link DiskFault#DISK_FULL} with 507 and the rest with 503, the
 * message as the body.
 */
public final class StorageFaultException extends IOException {

    private final DiskFault fault;

    /**
     * @param what  what failed, for the message ("WAL append to wal-000012.log")
     * @param cause the failure; its kind is {@link DiskFault#classify classified} from it
     */
    public StorageFaultException(String what, Throwable cause) {
        this(DiskFault.classify(cause), what, cause);
    }

    private StorageFaultException(DiskFault fault, String what, Throwable cause) {
        super(fault.description() + ": " + what + ": " + rootMessage(cause), cause);
        this.fault = fault;
    }

    private StorageFaultException(StorageFaultException original) {
        super(original.getMessage(), original.getCause());
        this.fault = original.fault;
    }

    /**
     * A new exception with this one's message, kind and cause, for one more caller: an exception
     * instance is never thrown to two threads (nor twice to one, which try-with-resources would turn
     * into a self-suppression error).
     */
    public StorageFaultException copy() {
        return new StorageFaultException(this);
    }

    /** The kind of fault. */
    public DiskFault fault() {
        return fault;
    }

    private static String rootMessage(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
    }
}
