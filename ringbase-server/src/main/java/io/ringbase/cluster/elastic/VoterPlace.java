package io.ringbase.cluster.elastic;

import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.metadata.ClusterMetadata;
import io.ringbase.cluster.metadata.Member;
import io.ringbase.cluster.metadata.MemberState;
import io.ringbase.cluster.metadata.MetadataOptions;
import io.ringbase.cluster.metadata.MetadataService;
import io.ringbase.tls.PeerKeys;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a founding node's replacement takes the replaced node's place among the voters of the metadata group
 * (see {@link ElasticMembership#replacingVoter}): the replaced voter leaves the group's configuration, then
 * this node's new metadata server joins it, each through the leader; both computed from the metadata alone,
 * so that asking again after a crash changes nothing that is done.
 */
final class VoterPlace {

    private static final Logger log = LoggerFactory.getLogger(VoterPlace.class);

    /** How long a replacement keeps asking the group to take it as a voter at start, ms. */
    static final long VOTER_CHANGE_TIMEOUT_MS = 120_000;

    private VoterPlace() {}

    /**
     * Starts this node's metadata server as a voter in the replaced node's place (or, once the metadata
     * records it as a voter, as that voter).
     *
     * @param tls mutual TLS on the metadata port ({@link MetadataOptions#tls()}), or {@code null}: plain
     * @return the started service, its server a voter and at {@code joined}'s epoch at least
     * @throws IOException if the server cannot start or the group does not take it in time; nothing stays open
     */
    static MetadataService take(NodeId self, ClusterMetadata joined, Path dataDir, @Nullable PeerKeys tls)
            throws IOException {
        Member me = joined.member(self.index() + 1).orElseThrow();
        Map<Integer, String> voters = new TreeMap<>();
        for (int id : joined.voters()) {
            if (id != me.replaces() || me.state() != MemberState.REPLACING) {
                voters.put(id, joined.member(id).orElseThrow().metadataAddress());
            }
        }
        Map<Integer, String> others = new TreeMap<>(voters);
        voters.put(me.id(), me.metadataAddress());
        Path storage = dataDir.resolve("metadata");
        MetadataOptions options = MetadataOptions.of(me.id(), voters, storage).withTls(tls);
        boolean recorded = joined.isVoter(me.id());
        if (!recorded && !Files.isDirectory(storage.resolve(MetadataService.GROUP_ID.toString()))) {
            // The dead voter leaves the configuration before this node's metadata server first listens. Ratis
            // does not check which peer a request is addressed to, so a new server at the dead voter's address
            // (a replacement at the same URL) would otherwise be taken for it, with an empty log, by every
            // server whose configuration still holds it: the wiped voter this replacement exists to avoid.
            log.info(
                    "node {} replaces node {}: the metadata voters become {} first, then {}",
                    me.id(),
                    me.replaces(),
                    others.keySet(),
                    voters.keySet());
            setVoters(others, me.replaces(), tls);
        }
        MetadataService service = MetadataService.start(recorded ? options : options.asNewVoter(), joined.voters());
        try {
            if (!recorded) {
                service.setVoters(voters, VOTER_CHANGE_TIMEOUT_MS);
            }
            awaitEpoch(service, joined.epoch());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closeQuietly(service, e);
            throw new java.io.InterruptedIOException("interrupted while becoming a metadata voter");
        } catch (RuntimeException e) {
            closeQuietly(service, e);
            throw new IOException(
                    "node " + me.id() + " could not take node " + me.replaces() + "'s place among the metadata voters "
                            + voters.keySet() + ": " + e.getMessage()
                            + "; start it again to retry (a majority of the voters must be up)",
                    e);
        }
        return service;
    }

    /** Has the group's voters become {@code voters} through a client alone; an IOException if it does not. */
    private static void setVoters(Map<Integer, String> voters, int replaced, @Nullable PeerKeys tls)
            throws IOException {
        try {
            MetadataService.setVoters(voters, voters, VOTER_CHANGE_TIMEOUT_MS, tls);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while removing node " + replaced + " as a voter");
        } catch (RuntimeException e) {
            throw new IOException(
                    "could not remove node " + replaced + " from the metadata voters " + voters.keySet() + ": "
                            + e.getMessage() + "; start it again to retry (a majority of the voters must be up)",
                    e);
        }
    }

    /** Waits until {@code service} has applied {@code epoch}, within {@link #VOTER_CHANGE_TIMEOUT_MS}. */
    private static void awaitEpoch(MetadataService service, long epoch) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(VOTER_CHANGE_TIMEOUT_MS);
        while (true) {
            try {
                var _ = service.awaitEpoch(epoch).get(VOTER_CHANGE_TIMEOUT_MS, TimeUnit.MILLISECONDS);
                return;
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("its metadata server did not reach epoch " + epoch, e);
                }
            }
        }
    }

    private static void closeQuietly(MetadataService service, Exception failure) {
        try {
            service.close();
        } catch (IOException | RuntimeException e) {
            failure.addSuppressed(e);
        }
    }
}
