package io.ringbase.cluster.metadata;

import io.ringbase.tls.PeerKeys;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * How a {@link MetadataService} runs, validated on construction (a bad value throws
 * {@link IllegalArgumentException} naming it).
 *
 * @param selfId               this node's id in {@code peers}
 * @param peers                the metadata group as this node knows it at start: node id (at least 1; the
 *                             founding members' ids, 1..n in the order of the INITIALIZE, or later the voters the
 *                             metadata records) to the {@code host:port} its metadata server listens on, this
 *                             server's own included; copied. A server with storage recovers the group's
 *                             configuration from it (Ratis's {@code raft-meta.conf} and log), so these only
 *                             seed a new one
 * @param newVoter             whether this server is not yet a voter: its Raft server starts outside the group's
 *                             configuration (the group it is given is {@code peers} less itself) and waits to be
 *                             added by {@link MetadataService#setVoters} (a founding node's replacement); false for
 *                             a founding node, whose new storage starts with {@code peers} as the configuration
 * @param directory            where this server keeps the Raft log and snapshots (a node uses
 *                             {@code <data-dir>/metadata}); created if absent
 * @param requestTimeoutMs     how long {@link MetadataService#submit} and the other calls that need the
 *                             quorum wait before failing with {@link MetadataUnavailableException}, ms; default
 *                             {@value #DEFAULT_REQUEST_TIMEOUT_MS}
 * @param snapshotEveryEntries applied log entries between two snapshots; default
 *                             {@value #DEFAULT_SNAPSHOT_EVERY_ENTRIES}
 * @param logSegmentBytes      size of a Raft log segment file, bytes, at least {@value #MIN_LOG_SEGMENT_BYTES};
 *                             closed segments wholly covered by a snapshot are deleted, so the log on disk stays
 *                             within a few segments; also the largest batch the leader sends a follower at once,
 *                             and (+ 8) the size of the server's direct write buffer; default
 *                             {@value #DEFAULT_LOG_SEGMENT_BYTES} (4 MiB, above the largest record of
 *                             docs/metadata-format.md)
 * @param tls                  mutual TLS on the group's port ({@link PeerKeys}: Ratis over gRPC), or
 *                             {@code null} for plain TCP (Ratis over Netty), the default. Every server of a
 *                             group must have the same: a plain server and a TLS one do not understand each other
 */
public record MetadataOptions(
        int selfId,
        Map<Integer, String> peers,
        boolean newVoter,
        Path directory,
        long requestTimeoutMs,
        long snapshotEveryEntries,
        long logSegmentBytes,
        @Nullable PeerKeys tls) {

    public static final long DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
    public static final long DEFAULT_SNAPSHOT_EVERY_ENTRIES = 1024;
    public static final long DEFAULT_LOG_SEGMENT_BYTES = 4L << 20;
    public static final long MIN_LOG_SEGMENT_BYTES = 8L << 10;

    public MetadataOptions {
        Objects.requireNonNull(directory, "directory");
        peers = Collections.unmodifiableMap(new TreeMap<>(peers));
        if (peers.isEmpty()) {
            throw new IllegalArgumentException("the metadata group needs at least one peer");
        }
        for (var peer : peers.entrySet()) {
            if (peer.getKey() < 1) {
                throw new IllegalArgumentException("peer ids must be >= 1, got " + peer.getKey());
            }
            Member.checkMetadataAddress(peer.getValue());
        }
        if (peers.values().stream().distinct().count() != peers.size()) {
            throw new IllegalArgumentException("two peers share a metadata address: " + peers);
        }
        if (!peers.containsKey(selfId)) {
            throw new IllegalArgumentException("self id " + selfId + " is not one of the peers " + peers.keySet());
        }
        if (newVoter && peers.size() < 2) {
            throw new IllegalArgumentException("a new voter needs the group's voters among the peers, got " + peers);
        }
        if (requestTimeoutMs <= 0) {
            throw new IllegalArgumentException("requestTimeoutMs must be positive, got " + requestTimeoutMs);
        }
        if (snapshotEveryEntries <= 0) {
            throw new IllegalArgumentException("snapshotEveryEntries must be positive, got " + snapshotEveryEntries);
        }
        if (logSegmentBytes < MIN_LOG_SEGMENT_BYTES) {
            throw new IllegalArgumentException(
                    "logSegmentBytes must be at least " + MIN_LOG_SEGMENT_BYTES + ", got " + logSegmentBytes);
        }
    }

    /** These peers and directory with the defaults listed above. */
    public static MetadataOptions of(int selfId, Map<Integer, String> peers, Path directory) {
        return new MetadataOptions(
                selfId,
                peers,
                false,
                directory,
                DEFAULT_REQUEST_TIMEOUT_MS,
                DEFAULT_SNAPSHOT_EVERY_ENTRIES,
                DEFAULT_LOG_SEGMENT_BYTES,
                null);
    }

    public MetadataOptions withRequestTimeoutMs(long ms) {
        return new MetadataOptions(selfId, peers, newVoter, directory, ms, snapshotEveryEntries, logSegmentBytes, tls);
    }

    public MetadataOptions withSnapshotEveryEntries(long entries) {
        return new MetadataOptions(selfId, peers, newVoter, directory, requestTimeoutMs, entries, logSegmentBytes, tls);
    }

    public MetadataOptions withLogSegmentBytes(long bytes) {
        return new MetadataOptions(
                selfId, peers, newVoter, directory, requestTimeoutMs, snapshotEveryEntries, bytes, tls);
    }

    /** These options for a server that starts outside the group and waits to be added (see {@code newVoter}). */
    public MetadataOptions asNewVoter() {
        return new MetadataOptions(
                selfId, peers, true, directory, requestTimeoutMs, snapshotEveryEntries, logSegmentBytes, tls);
    }

    /** These options with mutual TLS on the group's port ({@code null}: plain). */
    public MetadataOptions withTls(@Nullable PeerKeys tls) {
        return new MetadataOptions(
                selfId, peers, newVoter, directory, requestTimeoutMs, snapshotEveryEntries, logSegmentBytes, tls);
    }

    /** This server's own {@code host:port}. */
    public String selfAddress() {
        return Objects.requireNonNull(peers.get(selfId), "checked on construction");
    }
}
