package io.ringbase.api;

import java.io.IOException;

/**
 * What the admin API ({@code /v0/admin/}) needs of the node's engine beyond repair. Each call blocks
 * until its work is done (it runs on a worker) and answers one JSON object for the caller.
 */
public interface AdminControl {

    /** A server without admin control (a bare server in tests and tools): each request is 404. */
    AdminControl NONE = new AdminControl() {
        @Override
        public String flush() throws NotFoundException {
            throw new NotFoundException("no /v0/admin/flush on this server");
        }

        @Override
        public String compact() throws NotFoundException {
            throw new NotFoundException("no /v0/admin/compact on this server");
        }

        @Override
        public String snapshot(String name) throws NotFoundException {
            throw new NotFoundException("no /v0/admin/snapshot on this server");
        }
    };

    /** Flushes the memtable to an SSTable ({@code POST /v0/admin/flush}). */
    String flush() throws IOException, NotFoundException;

    /** Merges every SSTable into one ({@code POST /v0/admin/compact}). */
    String compact() throws IOException, NotFoundException;

    /**
     * Flushes, then hard-links the live SSTables and a manifest naming them into
     * {@code <data-dir>/snapshots/<name>/} ({@code POST /v0/admin/snapshot?name=}).
     *
     * @throws IllegalArgumentException if {@code name} is not a valid snapshot name or already exists
     */
    String snapshot(String name) throws IOException, NotFoundException;
}
