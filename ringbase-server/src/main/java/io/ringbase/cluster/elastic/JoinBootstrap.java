package io.ringbase.cluster.elastic;

import io.ringbase.clock.HybridLogicalClock;
import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.Topology;
import io.ringbase.cluster.membership.IdentityFile;
import io.ringbase.cluster.membership.IdentityMismatchException;
import io.ringbase.cluster.membership.NodeIdentity;
import io.ringbase.cluster.metadata.ClusterMetadata;
import io.ringbase.cluster.metadata.Member;
import io.ringbase.cluster.metadata.MemberState;
import io.ringbase.cluster.metadata.MetadataCodec;
import io.ringbase.cluster.metadata.Transformation;
import io.ringbase.cluster.rpc.MetadataClient;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a node started with {@code --join} does before it opens its services: it asks the node it joins
 * through for the cluster metadata, and either finds itself in it (a restart: it resumes) or has the log
 * register it (StartJoin: it is JOINING, with the next node id). A node whose URL the metadata holds as a
 * full replica while its data directory does not know that id lost its data: it is refused, never taken
 * for that replica (that is how a wiped node would serve stale reads).
 */
public final class JoinBootstrap {

    private static final Logger log = LoggerFactory.getLogger(JoinBootstrap.class);

    /** How long a joining node keeps asking the node it joins through, ms. */
    static final long FETCH_DEADLINE_MS = 60_000;

    /**
     * Where the node stands after the bootstrap.
     *
     * @param metadata the metadata at which this node is a member
     * @param topology the live members as this node's starting topology (its {@code self} this node)
     */
    public record Joined(ClusterMetadata metadata, Topology topology) {}

    private JoinBootstrap() {}

    /**
     * Registers this node with the cluster of {@code joinUrl}, or finds it registered already.
     *
     * @param metadataAddress the {@code host:port} recorded for this node (it runs no metadata server)
     * @throws IdentityMismatchException if the metadata holds this URL as a member this data directory is not
     * @throws IOException               if the node joined through cannot be reached, or the log refuses the join
     */
    public static Joined join(
            MetadataClient client, String joinUrl, String selfUrl, String metadataAddress, Path dataDir)
            throws IOException, InterruptedException {
        ClusterMetadata m = fetch(client, joinUrl);
        @Nullable NodeIdentity identity = IdentityFile.read(dataDir);
        Optional<Member> existing = m.liveMemberWithUrl(selfUrl);
        Member me;
        if (existing.isPresent()) {
            me = existing.get();
            boolean same = identity != null && identity.nodeId() == me.id() - 1;
            if (!same && me.state() != MemberState.JOINING) {
                throw new IdentityMismatchException(selfUrl + " is node " + me.id() + " (" + me.state()
                        + ") of the cluster, but data directory " + dataDir
                        + " does not hold it (wiped, or another directory): its keys would be missing. Start it"
                        + " on its own data directory, or remove it (ringbase admin remove) and join anew");
            }
            log.info("{} is node {} ({}) at epoch {}: resuming", selfUrl, me.id(), me.state(), m.epoch());
        } else {
            if (identity != null) {
                throw new IdentityMismatchException(
                        "data directory " + dataDir + " holds node " + (identity.nodeId() + 1)
                                + " of an earlier membership; a joining node starts with an empty data directory");
            }
            if (m.nextNodeId() > HybridLogicalClock.MAX_NODES) {
                throw new IOException("the cluster has used all " + HybridLogicalClock.MAX_NODES
                        + " node ids (versions carry the node id in 6 bits); no node can join");
            }
            byte[] after = client.submit(
                    joinUrl, MetadataCodec.encode(new Transformation.StartJoin(selfUrl, metadataAddress)));
            m = MetadataCodec.decodeMetadata(after);
            me = m.liveMemberWithUrl(selfUrl)
                    .orElseThrow(() -> new IOException("the log took the join but holds no member " + selfUrl));
            log.info("{} joins as node {} at epoch {}: JOINING", selfUrl, me.id(), m.epoch());
        }
        NodeId self = Placements.nodeOf(me);
        var nodes = Placements.liveNodes(m);
        return new Joined(m, new Topology(nodes, self, Math.min(m.replicationFactor(), nodes.size())));
    }

    /** The metadata of the node at {@code url}, asked again until {@link #FETCH_DEADLINE_MS} passes. */
    private static ClusterMetadata fetch(MetadataClient client, String url) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(FETCH_DEADLINE_MS);
        while (true) {
            try {
                return MetadataCodec.decodeMetadata(client.fetch(url));
            } catch (MetadataClient.Refused e) {
                if (e.status() != 503 || System.nanoTime() > deadline) {
                    throw e;
                }
            } catch (IOException e) {
                if (System.nanoTime() > deadline) {
                    throw new IOException("cannot reach " + url + " to join through it: " + e.getMessage(), e);
                }
            }
            TimeUnit.MILLISECONDS.sleep(500);
        }
    }
}
