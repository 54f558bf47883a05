package io.ringbase.cluster.elastic;

import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.Topology;
import io.ringbase.cluster.membership.HelloSender;
import io.ringbase.cluster.membership.IdentityFile;
import io.ringbase.cluster.membership.IdentityMismatchException;
import io.ringbase.cluster.membership.NodeIdentity;
import io.ringbase.cluster.membership.NodeState;
import io.ringbase.cluster.metadata.ClusterMetadata;
import io.ringbase.cluster.metadata.Member;
import io.ringbase.cluster.metadata.MetadataCodec;
import io.ringbase.cluster.metadata.MetadataService;
import io.ringbase.cluster.rpc.MetadataClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a founding node checks before it starts its metadata (Raft) server: that it does not come back as a
 * voter with a log it lost. A voter's log and vote are what Raft's safety rests on: an entry is committed
 * once a majority of voters has stored it, and a voter votes only for a candidate whose log holds at least
 * what its own holds. A voter that forgot both (a wiped disk) under its old id can vote, with a voter that
 * missed the entry, for a leader without a committed change, which that leader then overwrites (Raft
 * thesis, section 11.1; etcd refuses such a member the same way, by asking it be removed and added anew).
 *
 * <p>A node cannot tell "new" from "wiped" by looking at its empty directory, but its peers can: every
 * founding node says hello to the others once it is a full replica, and they remember its incarnation
 * (io.ringbase.cluster.membership). So a founding node that finds no metadata log says hello to every other
 * founding node (as PENDING, which changes nothing there) and is refused if one remembers it: it must be
 * replaced by a node with a new id ({@code --replace}), which the group adds as a new voter. A founding node
 * that kept its log but was replaced while it was down is refused as well (it is no voter any more).
 */
public final class FoundingCheck {

    private static final Logger log = LoggerFactory.getLogger(FoundingCheck.class);

    private FoundingCheck() {}

    /**
     * Refuses to start a founding node that lost its metadata log.
     *
     * @param founders   the {@code --cluster} list, its {@code self} this node
     * @param portOffset {@code --metadata-port-offset}, for the message
     * @throws IdentityMismatchException if {@code dataDir} holds no metadata log but this node's identity, or
     *                                   a peer remembers an incarnation of this node: one line naming the
     *                                   {@code --replace} command
     * @throws IOException               if the data directory cannot be read
     */
    public static void requireOwnLog(
            MetadataClient client, Topology founders, int portOffset, Path dataDir, String clusterName)
            throws IOException, InterruptedException {
        Path group = dataDir.resolve("metadata").resolve(MetadataService.GROUP_ID.toString());
        NodeId self = founders.self();
        int id = self.index() + 1;
        if (Files.isDirectory(group)) {
            requireNotReplaced(client, founders, id); // its own log: Ratis recovers it, unless it was replaced
            return;
        }
        if (IdentityFile.read(dataDir) != null) {
            throw new IdentityMismatchException("data directory " + dataDir + " holds founding node " + id
                    + " but not its metadata log (" + group + "): a metadata voter must never come back without"
                    + " its log. " + replaceHint(self, portOffset, id));
        }
        NodeIdentity probe =
                new NodeIdentity(clusterName, self.index(), new SecureRandom().nextLong(), NodeState.PENDING, 0);
        for (NodeId peer : founders.nodes()) {
            if (peer.equals(self)) {
                continue;
            }
            HelloSender.Answer answer;
            try {
                answer = client.hello(peer.toString(), self.toString(), probe);
            } catch (IOException e) {
                // down, or not started yet (a new cluster whose founding nodes start one by one)
                log.debug("founding check: {} did not answer: {}", peer, e.getMessage());
                continue;
            }
            if (answer.remembers()) {
                throw new IdentityMismatchException("founding node " + id + " (" + self + ") has no metadata log in "
                        + dataDir + ", but " + peer + " knows it ran (incarnation "
                        + NodeIdentity.hex(answer.remembered())
                        + "): it lost its disk, and a metadata voter that forgot its log could elect a leader"
                        + " missing committed changes. " + replaceHint(self, portOffset, id));
            }
        }
    }

    /**
     * Refuses a founding node that was replaced while it was down and came back with its old disk: the group
     * took its replacement as a voter in its place, so its metadata server would stay at the metadata it had
     * (no leader sends it anything) and its node would serve by that old placement. Asks the other founding
     * nodes for their metadata; the first that answers decides, and none answering lets it start.
     */
    private static void requireNotReplaced(MetadataClient client, Topology founders, int id)
            throws IOException, InterruptedException {
        NodeId self = founders.self();
        for (NodeId peer : founders.nodes()) {
            if (peer.equals(self)) {
                continue;
            }
            ClusterMetadata m;
            try {
                m = MetadataCodec.decodeMetadata(client.fetch(peer.toString()));
            } catch (IOException e) {
                log.debug("founding check: no metadata from {}: {}", peer, e.getMessage());
                continue;
            }
            for (Member other : m.members().values()) {
                // REPLACING already: the replacement took its place among the voters as it started
                if (other.replaces() == id && other.state().isLive()) {
                    throw new IdentityMismatchException("founding node " + id + " (" + self + ") was replaced by node "
                            + other.id() + " (" + other.url() + ", " + other.state() + ") while it was down: its data"
                            + " directory belongs to a node that leaves the cluster, and its metadata server is no"
                            + " voter any more. Start it on an empty data directory with --join to add it as a new"
                            + " node");
                }
            }
            return;
        }
    }

    private static String replaceHint(NodeId self, int portOffset, int id) {
        return "Start it on its own data directory, or replace it (it gets a new id and voter): serve --join URL"
                + " --self " + self + " --metadata-port-offset " + portOffset + " --replace " + id;
    }
}
