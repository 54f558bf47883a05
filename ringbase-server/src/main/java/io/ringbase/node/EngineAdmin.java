package io.ringbase.node;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.ringbase.api.AdminControl;
import io.ringbase.storage.ManagedEngine;
import io.ringbase.storage.Snapshot;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Flush, compaction and snapshots of a node's engine, for {@code /v0/admin/}; each call blocks until done. */
final class EngineAdmin implements AdminControl {

    private static final Logger log = LoggerFactory.getLogger(EngineAdmin.class);

    private final ManagedEngine engine;

    EngineAdmin(ManagedEngine engine) {
        this.engine = engine;
    }

    @Override
    public String flush() throws IOException {
        engine.flush();
        return "{\"flushed\":true,\"sstables\":" + engine.tableCount() + "}";
    }

    @Override
    public String compact() throws IOException {
        int merged = engine.compactAll();
        return "{\"merged\":" + merged + ",\"sstables\":" + engine.tableCount() + "}";
    }

    @Override
    public String snapshot(String name) throws IOException {
        Snapshot snap;
        try {
            snap = engine.snapshot(name);
        } catch (FileAlreadyExistsException e) {
            throw new IllegalArgumentException("snapshot '" + name + "' already exists: " + e.getFile());
        }
        log.info("snapshot {}: {} SSTables, {} bytes in {}", name, snap.sstables(), snap.bytes(), snap.dir());
        return JsonNodeFactory.instance
                .objectNode()
                .put("name", name)
                .put("dir", snap.dir().toAbsolutePath().normalize().toString())
                .put("sstables", snap.sstables())
                .put("bytes", snap.bytes())
                .toString();
    }
}
