package io.ringbase.cluster.elastic;

import io.ringbase.cluster.metadata.ClusterMetadata;
import io.ringbase.cluster.metadata.Member;
import io.ringbase.cluster.metadata.MetadataCodec;
import io.ringbase.cluster.metadata.Transformation;
import io.ringbase.cluster.rpc.MetadataClient;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log as a node outside the metadata group sees it: a copy of the newest metadata, fetched from the
 * other members every {@link #POLL_MS} (and at once when a peer shows a newer epoch), and changes submitted
 * through whichever voter of the metadata group answers (the voters come from the metadata itself, so a
 * replaced founding node's successor is asked, not the list the cluster was founded with). One daemon thread polls.
 */
final class FollowedMetadataLog implements MetadataLog {

    private static final Logger log = LoggerFactory.getLogger(FollowedMetadataLog.class);

    /** How often the newest metadata is fetched, ms. */
    static final long POLL_MS = 500;

    private final MetadataClient client;
    private final String selfUrl;
    private final Executor submitter;
    private final List<Consumer<ClusterMetadata>> listeners = new CopyOnWriteArrayList<>();
    private final Object lock = new Object();
    private volatile ClusterMetadata current;
    private long wanted; // guarded by lock: the newest epoch a peer showed
    private boolean closed; // guarded by lock
    private final Thread poller;
    private int next; // the poller's round-robin position

    /**
     * @param initial   the metadata the node started from (fetched through {@code --join})
     * @param submitter runs submissions (they block on the network)
     */
    FollowedMetadataLog(MetadataClient client, String selfUrl, ClusterMetadata initial, Executor submitter) {
        this.client = client;
        this.selfUrl = selfUrl;
        this.current = initial;
        this.submitter = submitter;
        this.poller =
                Thread.ofPlatform().daemon().name("ringbase-metadata-follower").unstarted(this::pollLoop);
    }

    void start() {
        poller.start();
    }

    @Override
    public ClusterMetadata current() {
        return current;
    }

    /** The other live members, each a source of metadata. */
    private List<String> sources() {
        List<String> out = new ArrayList<>();
        for (Member m : current.members().values()) {
            if (m.state().isLive() && !m.url().equals(selfUrl)) {
                out.add(m.url());
            }
        }
        return out;
    }

    /**
     * Where a change is submitted: the voters of the metadata group as the metadata records them (they
     * commit it through their own Raft client; a node outside the group would only forward it to them), or,
     * for metadata without recorded voters (format 1), every other live member.
     */
    private List<String> submitTargets() {
        ClusterMetadata m = current;
        if (!m.votersRecorded()) {
            return sources();
        }
        List<String> out = new ArrayList<>();
        for (int id : m.voters()) {
            Member voter = m.member(id).orElse(null);
            // a decommissioned founding node is LEFT but stays a voter, and runs
            if (voter != null && !voter.url().equals(selfUrl)) {
                out.add(voter.url());
            }
        }
        return out;
    }

    @Override
    public CompletableFuture<ClusterMetadata> submit(Transformation change) {
        return CompletableFuture.supplyAsync(
                () -> {
                    byte[] record = MetadataCodec.encode(change);
                    List<String> failures = new ArrayList<>();
                    for (String url : submitTargets()) {
                        try {
                            ClusterMetadata after = MetadataCodec.decodeMetadata(client.submit(url, record));
                            learn(after);
                            return after;
                        } catch (MetadataClient.Refused e) {
                            if (e.status() == 409) {
                                throw new IllegalArgumentException(e.getMessage(), e);
                            }
                            failures.add(e.getMessage());
                        } catch (IOException e) {
                            failures.add(url + ": " + e.getMessage());
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            throw new IllegalStateException("interrupted while submitting " + change, e);
                        }
                    }
                    throw new IllegalStateException("no member of the metadata group took " + change + ": " + failures);
                },
                submitter);
    }

    @Override
    public void addListener(Consumer<ClusterMetadata> listener) {
        listeners.add(listener);
    }

    @Override
    public void sawEpoch(long epoch) {
        synchronized (lock) {
            if (epoch > current.epoch() && epoch > wanted) {
                wanted = epoch;
                lock.notifyAll();
            }
        }
    }

    /** Publishes {@code metadata} if it is newer than the copy held. */
    void learn(ClusterMetadata metadata) {
        synchronized (lock) {
            if (metadata.epoch() <= current.epoch()) {
                return;
            }
            current = metadata;
        }
        for (Consumer<ClusterMetadata> l : listeners) {
            try {
                l.accept(metadata);
            } catch (RuntimeException e) {
                log.error("a metadata listener failed at epoch {}", metadata.epoch(), e);
            }
        }
    }

    private void pollLoop() {
        while (true) {
            synchronized (lock) {
                if (closed) {
                    return;
                }
                if (wanted <= current.epoch()) {
                    try {
                        lock.wait(POLL_MS);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                if (closed) {
                    return;
                }
            }
            List<String> sources = sources();
            if (sources.isEmpty()) {
                continue;
            }
            String url = sources.get(Math.floorMod(next++, sources.size()));
            try {
                learn(MetadataCodec.decodeMetadata(client.fetch(url)));
            } catch (IOException e) { // unreachable, refused, or a damaged record: the next poll asks another
                log.debug("fetching the cluster metadata from {} failed: {}", url, e.getMessage());
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    @Override
    public void close() {
        synchronized (lock) {
            closed = true;
            lock.notifyAll();
        }
        poller.interrupt();
        client.close();
    }
}
