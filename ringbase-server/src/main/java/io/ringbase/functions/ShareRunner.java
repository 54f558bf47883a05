package io.ringbase.functions;

import io.ringbase.clock.TimeSource;
import io.ringbase.kv.EntryBatchSource;
import io.ringbase.kv.KeyValueService;
import io.ringbase.kv.LocalBatchSource;
import io.ringbase.kv.QuorumException;
import io.ringbase.kv.ScanShare;
import io.ringbase.kv.SystemKeys;
import io.ringbase.storage.Entry;
import io.ringbase.storage.KeyFilter;
import io.ringbase.storage.Keys;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Runs one page of a share on this node (docs/functions.md, "How a job is distributed"): the first
 * {@link SharePage.Request#maxKeys()} keys from {@link SharePage.Request#from()} that are in the share,
 * read from the quorum-merged scan of the cluster ({@link KeyValueService#scan(byte[], byte[], ScanShare)},
 * which merges enough nodes to see every key written with the default quorum, newest version winning,
 * tombstones and expired entries hidden, and asks each of them for the share's keys only) and kept when
 * the share's {@link KeyFilter} takes them: a replica of an older version sends the whole range. The
 * function comes from this node's cache when it holds the module the coordinator loaded
 * ({@link FunctionStore#load(String, String)}), so pages after the first read no module. The page is an ordinary
 * {@link ProcessJob} with a key budget that is not listed among the running jobs: the coordinator's job
 * is, and counts the page once its answer arrives.
 */
final class ShareRunner {

    private ShareRunner() {}

    /**
     * Starts the page; blocks to load the function and open the scan (a worker).
     *
     * @throws IllegalArgumentException if the function is missing or cannot run in the mode asked
     * @throws QuorumException          if too few nodes are up for the scan; other exceptions as
     *                                  {@link KeyValueService#scan} and {@link FunctionStore#load}
     */
    static CompletableFuture<SharePage.Reply> start(
            Jobs jobs, KeyValueService kv, TimeSource time, SharePage.Request asked, KeyFilter share) throws Exception {
        WasmFunction function = jobs.store().load(asked.function(), asked.module());
        if (function == null) {
            throw new IllegalArgumentException("no function '" + asked.function() + "'");
        }
        if (!function.supports(asked.mode())) {
            throw new IllegalArgumentException("function '" + function.name() + "' cannot run in mode "
                    + asked.mode().label());
        }
        if (!function.hash().equals(asked.module())) {
            throw new IllegalArgumentException("function '" + function.name() + "' was replaced since the job started");
        }
        ProcessRequest request =
                new ProcessRequest(asked.function(), asked.from(), asked.end(), asked.mode(), asked.onError(), null);
        ProcessJob page = new ProcessJob(asked.job(), function, request, jobs, kv, time, asked.maxKeys());
        byte[] end = asked.end();
        ScanShare scanShare = new ScanShare(asked.epoch(), asked.down(), asked.path());
        List<PageInput> opened = new java.util.concurrent.CopyOnWriteArrayList<>();
        ProcessJob.ScanOpener opener = from -> {
            PageInput in = new PageInput(
                    end != null && Keys.compare(from, end) >= 0
                            ? LocalBatchSource.empty()
                            : new ShareSource(SystemKeys.hidden(kv.scan(from, end, scanShare)), share),
                    List.of());
            opened.add(in);
            return in;
        };
        ShareScans.Parked parked = jobs.shareScans().take(key(asked, asked.from()));
        EntryBatchSource scan;
        if (parked != null) {
            PageInput in = new PageInput(parked.scan(), parked.ahead());
            FunctionInstance instance = parked.instance();
            if (instance != null) {
                page.adopt(instance);
            }
            opened.add(in);
            scan = in;
        } else {
            scan = opener.open(asked.from());
        }
        CompletableFuture<SharePage.Reply> reply;
        if (asked.mode() == ProcessMode.MAP) {
            EntryBatchSource out = page.mapOutput(scan, opener);
            List<Entry> records = new ArrayList<>();
            reply = drain(out, records).thenApply(x -> {
                out.close();
                records.removeLast(); // the page's own summary: the coordinator writes the job's
                return reply(page, records);
            });
        } else {
            reply = page.run(scan, opener).thenApply(summary -> reply(page, List.of()));
        }
        return reply.whenComplete((r, failure) -> release(jobs.shareScans(), asked, page, opened, failure == null));
    }

    /**
     * Parks the page's scan for the share's next page ({@link ShareScans}) if the page ended full, with the
     * entries it read past its cursor; closes every other scan the page opened (those a broken scan was
     * replaced by, and the last one when the share is done or the page failed).
     */
    private static void release(
            ShareScans scans, SharePage.Request asked, ProcessJob page, List<PageInput> opened, boolean ok) {
        for (int i = 0; i < opened.size() - 1; i++) {
            opened.get(i).scan.close();
        }
        PageInput last = opened.getLast();
        byte[] cursor = page.lastKey();
        if (!ok || !page.full() || page.state() != ProcessJob.State.DONE || cursor == null || last.broken) {
            last.scan.close();
            return;
        }
        List<Entry> ahead = new ArrayList<>();
        for (Entry e : last.lastBatch) {
            if (Keys.compare(e.key(), cursor) > 0) {
                ahead.add(e);
            }
        }
        scans.park(key(asked, ProcessJob.successor(cursor)), last.scan, ahead, page.instanceIfMade());
    }

    /** Where a page of the share in {@code asked} that starts at {@code from} finds a parked scan. */
    private static ShareScans.Key key(SharePage.Request asked, byte[] from) {
        java.util.HexFormat hex = java.util.HexFormat.of();
        return new ShareScans.Key(
                asked.job(),
                asked.token(),
                asked.function() + "@" + asked.module(),
                asked.epoch(),
                asked.down().stream().sorted().toList(),
                asked.path(),
                asked.end() == null ? "" : hex.formatHex(asked.end()),
                hex.formatHex(from));
    }

    private static CompletableFuture<Void> drain(EntryBatchSource out, List<Entry> into) {
        return out.nextBatch(ProcessJob.BATCH_BYTES).thenCompose(batch -> {
            if (batch.isEmpty()) {
                return CompletableFuture.completedFuture(null);
            }
            into.addAll(batch);
            return drain(out, into);
        });
    }

    private static SharePage.Reply reply(ProcessJob page, List<Entry> records) {
        return new SharePage.Reply(
                page.state().name().toLowerCase(java.util.Locale.ROOT),
                page.full(),
                page.lastKey(),
                page.keysSeen(),
                page.recordsOut(),
                page.errors(),
                page.written(),
                page.retried(),
                page.resumed(),
                page.firstErrors(),
                page.partial(),
                records);
    }

    /**
     * The input of one page: the entries read ahead by the previous page first, then the scan. Closing it
     * leaves the scan open ({@link #release} decides); it remembers the last batch it handed out, whose
     * entries past the page's cursor the next page needs.
     */
    private static final class PageInput implements EntryBatchSource {
        final EntryBatchSource scan;
        private List<Entry> ahead;
        volatile List<Entry> lastBatch = List.of();
        volatile boolean broken;

        PageInput(EntryBatchSource scan, List<Entry> ahead) {
            this.scan = scan;
            this.ahead = ahead;
        }

        @Override
        public CompletableFuture<List<Entry>> nextBatch(int maxBytes) {
            if (!ahead.isEmpty()) {
                List<Entry> first = ahead;
                ahead = List.of();
                lastBatch = first;
                return CompletableFuture.completedFuture(first);
            }
            return scan.nextBatch(maxBytes).whenComplete((batch, failure) -> {
                if (failure != null) {
                    broken = true;
                } else {
                    lastBatch = batch;
                }
            });
        }

        @Override
        public void close() {
            // the page's end decides whether the scan is parked or closed
        }
    }

    /** The entries of a scan that are in the share; a batch left empty by the filter asks for the next. */
    private static final class ShareSource implements EntryBatchSource {
        private final EntryBatchSource scan;
        private final KeyFilter share;

        ShareSource(EntryBatchSource scan, KeyFilter share) {
            this.scan = scan;
            this.share = share;
        }

        @Override
        public CompletableFuture<List<Entry>> nextBatch(int maxBytes) {
            return scan.nextBatch(maxBytes).thenCompose(batch -> {
                if (batch.isEmpty()) {
                    return CompletableFuture.completedFuture(batch);
                }
                List<Entry> kept = new ArrayList<>(batch.size());
                for (Entry e : batch) {
                    if (share.keep(e.key())) {
                        kept.add(e);
                    }
                }
                return kept.isEmpty() ? nextBatch(maxBytes) : CompletableFuture.completedFuture(kept);
            });
        }

        @Override
        public void close() {
            scan.close();
        }
    }
}
