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
import java.util.ArrayList;
import java.util.List;
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
     * @param replaces        the id of the node this one replaces, 0 for a plain join
     * @throws IdentityMismatchException if the metadata holds this URL as a member this data directory is not
     * @throws IOException               if the node joined through cannot be reached, or the log refuses the join
     */
    public static Joined join(
            MetadataClient client, String joinUrl, String selfUrl, String metadataAddress, int replaces, Path dataDir)
            throws IOException, InterruptedException {
        ClusterMetadata m = fetch(client, joinUrl);
        @Nullable NodeIdentity identity = IdentityFile.read(dataDir);
        Member me = null;
        for (Member candidate : m.members().values()) {
            if (!candidate.state().isLive() || !candidate.url().equals(selfUrl) || candidate.id() == replaces) {
                continue;
            }
            boolean same = identity != null && identity.nodeId() == candidate.id() - 1;
            boolean streaming = candidate.state() == MemberState.JOINING || candidate.state() == MemberState.REPLACING;
            if (!same && !streaming) {
                throw new IdentityMismatchException(selfUrl + " is node " + candidate.id() + " (" + candidate.state()
                        + ") of the cluster, but data directory " + dataDir
                        + " does not hold it (wiped, or another directory): its keys would be missing. Start it on"
                        + " its own data directory, or replace it: serve --join URL --replace " + candidate.id());
            }
            me = candidate;
        }
        if (me != null) {
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
            if (replaces > 0) {
                refuseLiveReplaced(client, m, replaces, selfUrl);
            }
            Transformation change = replaces > 0
                    ? new Transformation.StartReplace(replaces, selfUrl, metadataAddress)
                    : new Transformation.StartJoin(selfUrl, metadataAddress);
            m = register(client, joinUrl, selfUrl, change);
            me = registered(m, selfUrl);
            if (me == null) {
                throw new IOException("the log took the change but holds no joining member " + selfUrl);
            }
            log.info(
                    "{} {} as node {} at epoch {}: {}",
                    selfUrl,
                    replaces > 0 ? "replaces node " + replaces : "joins",
                    me.id(),
                    m.epoch(),
                    me.state());
        }
        NodeId self = Placements.nodeOf(me);
        List<NodeId> nodes = new ArrayList<>();
        for (NodeId n : Placements.liveNodes(m)) {
            if (n.equals(self) || !n.toString().equals(selfUrl)) { // a replaced node at this URL is not a peer
                nodes.add(n);
            }
        }
        return new Joined(m, new Topology(nodes, self, Math.min(m.replicationFactor(), nodes.size())));
    }

    /**
     * Submits {@code change} (START_JOIN or START_REPLACE of this node) through {@code joinUrl} until it is
     * committed or refused, within {@link #FETCH_DEADLINE_MS}. A submission that timed out or found no quorum
     * (a metadata leader that just died: the next is elected in 1-2 s) may still have been committed, so the
     * metadata is fetched again before the next attempt and a change that took is not submitted twice.
     *
     * @return the metadata holding this node as JOINING or REPLACING
     * @throws IOException if the log refused the change (the reason), or the deadline passed
     */
    private static ClusterMetadata register(
            MetadataClient client, String joinUrl, String selfUrl, Transformation change)
            throws IOException, InterruptedException {
        String what = change instanceof Transformation.StartReplace ? "the replacement" : "the join";
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(FETCH_DEADLINE_MS);
        boolean retried = false;
        while (true) {
            try {
                return MetadataCodec.decodeMetadata(client.submit(joinUrl, MetadataCodec.encode(change)));
            } catch (MetadataClient.Refused e) {
                if (e.status() != 503 || System.nanoTime() > deadline) {
                    if (retried) { // refused as a second change, when the first attempt took after all?
                        ClusterMetadata now = fetch(client, joinUrl);
                        if (registered(now, selfUrl) != null) {
                            return now;
                        }
                    }
                    throw new IOException("the cluster refused " + what + ": " + e.getMessage(), e);
                }
                log.info("{} not committed yet ({}); asking again", what, e.getMessage());
            } catch (IOException e) {
                if (System.nanoTime() > deadline) {
                    throw new IOException(what + " was not committed through " + joinUrl + ": " + e.getMessage(), e);
                }
                log.info("{} not committed yet ({}); asking again", what, e.toString());
            }
            TimeUnit.MILLISECONDS.sleep(500);
            retried = true;
            ClusterMetadata now = fetch(client, joinUrl);
            if (registered(now, selfUrl) != null) {
                return now; // the attempt that timed out was committed
            }
        }
    }

    /** This node's member record in {@code m} if it is JOINING or REPLACING at {@code selfUrl}, else null. */
    private static @Nullable Member registered(ClusterMetadata m, String selfUrl) {
        for (Member candidate : m.members().values()) {
            if (candidate.url().equals(selfUrl)
                    && (candidate.state() == MemberState.JOINING || candidate.state() == MemberState.REPLACING)) {
                return candidate;
            }
        }
        return null;
    }

    /**
     * Refuses to replace a node that still answers at its own URL: a replacement takes the replaced node's
     * place among a write's replicas on the ground that it is dead (reads never count on it), so a live
     * one could answer reads that miss writes made meanwhile. Cassandra refuses a live node's
     * {@code replace_address} the same way. A node at this node's own URL is not running (this one is).
     *
     * @throws IOException if the replaced node answers
     */
    private static void refuseLiveReplaced(MetadataClient client, ClusterMetadata m, int replaces, String selfUrl)
            throws IOException, InterruptedException {
        Member replaced = m.member(replaces).orElse(null);
        if (replaced == null || replaced.url().equals(selfUrl)) {
            return; // an unknown id: the log refuses the change with its reason
        }
        try {
            client.fetch(replaced.url());
        } catch (MetadataClient.Refused e) {
            // it answered, if only to refuse: it runs
        } catch (IOException e) {
            return; // it does not answer: dead, as a replacement needs
        }
        throw new IOException("node " + replaces + " at " + replaced.url() + " still answers: stop it before "
                + "replacing it, or decommission it (ringbase admin decommission) to move its keys while it runs");
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
