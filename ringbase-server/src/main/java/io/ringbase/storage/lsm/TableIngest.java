package io.ringbase.storage.lsm;

import io.ringbase.storage.Entry;
import io.ringbase.storage.Ingest;
import io.ringbase.storage.lsm.View.LiveTable;
import io.ringbase.storage.lsm.sstable.SstableWriter;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link LsmEngine#ingest}: entries written straight into a new SSTable's {@code .sst.tmp} file, which
 * {@link #finish()} fsyncs, renames and publishes in a view and manifest of its own, as a flush publishes
 * its table; no WAL record, no memtable. Reads merge tables by version, so the table may hold versions
 * older or newer than anything else stored. Compaction takes it as it takes a flushed table.
 */
final class TableIngest implements Ingest {

    private static final Logger log = LoggerFactory.getLogger(TableIngest.class);

    private final TableFiles files;
    private final StatePublisher state;
    private final Runnable compactionDue;
    private final long number;
    private final SstableWriter writer;
    private final long started = System.nanoTime();
    private long entries;
    private boolean ended;

    /**
     * @param compactionDue schedules a compaction, run once the table is published
     * @throws IOException if the table file cannot be created
     */
    TableIngest(TableFiles files, StatePublisher state, Runnable compactionDue, long maxEntries) throws IOException {
        if (maxEntries <= 0) {
            throw new IllegalArgumentException("maxEntries must be > 0, got " + maxEntries);
        }
        this.files = files;
        this.state = state;
        this.compactionDue = compactionDue;
        this.number = files.nextNumber();
        this.writer = new SstableWriter(files.io(), files.tmpFile(number), maxEntries);
    }

    @Override
    public void add(Entry entry) throws IOException {
        if (ended) {
            throw new IllegalStateException("the ingest into table " + number + " has ended");
        }
        writer.add(entry); // refuses a key out of order, writing nothing
        entries++;
    }

    @Override
    public long entries() {
        return entries;
    }

    @Override
    public void finish() throws IOException {
        if (ended) {
            throw new IllegalStateException("the ingest into table " + number + " has ended");
        }
        ended = true;
        if (entries == 0) {
            writer.close();
            return;
        }
        Path tmp = files.tmpFile(number);
        try {
            writer.finish();
        } catch (IOException | RuntimeException | Error e) {
            writer.close();
            throw e;
        }
        LiveTable table = files.install(number, tmp);
        Path file = table.reader().path();
        long bytes = table.reader().fileBytes();
        boolean published = false;
        try {
            state.whilePublishLocked(() -> state.publish(v -> {
                List<LiveTable> tables = new ArrayList<>(v.tables());
                tables.add(table);
                return v.withTables(tables);
            }));
            published = true;
        } finally {
            table.reader().close(); // published: the view holds the table now
            if (!published) {
                IOException notKept = new IOException("ingested table " + file + " not published");
                files.deleteQuietly(file, notKept);
                if (notKept.getSuppressed().length > 0) {
                    log.warn("could not delete unpublished table {}; a restart deletes it", file, notKept);
                }
            }
        }
        log.info(
                "ingested {} entries ({} bytes) as {} in {} ms",
                entries,
                bytes,
                file.getFileName(),
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
        compactionDue.run();
    }

    @Override
    public void close() throws IOException {
        if (!ended) {
            ended = true;
            writer.close(); // deletes the unfinished file
        }
    }
}
