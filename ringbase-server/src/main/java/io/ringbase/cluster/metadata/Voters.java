package io.ringbase.cluster.metadata;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The voters of the metadata group as Ratis sees them: a member's node id {@code n} is the Raft peer
 * {@code node-<n>} at its metadata address, and the voters change only through the leader, by Ratis's
 * {@code setConfiguration} (Raft's joint consensus: the leader catches new servers up as non-voting staging
 * members, then commits the old and new voters together, then the new ones alone).
 */
final class Voters {

    private static final Logger log = LoggerFactory.getLogger(Voters.class);

    /** Wait between two attempts of a configuration change, ms. */
    private static final long RETRY_MS = 500;

    private Voters() {}

    /** The Raft peer id of the member with this node id: {@code node-<id>}, never reused as ids are not. */
    static RaftPeerId peerId(int nodeId) {
        return RaftPeerId.valueOf("node-" + nodeId);
    }

    /** The node id of a peer id {@code node-<id>}; -1 for any other. */
    static int nodeId(RaftPeerId peer) {
        String id = peer.toString();
        try {
            return id.startsWith("node-") ? Integer.parseInt(id.substring("node-".length())) : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** Node id to metadata address, as Raft peers. */
    static List<RaftPeer> raftPeers(Map<Integer, String> peers) {
        List<RaftPeer> out = new ArrayList<>();
        for (Map.Entry<Integer, String> peer : peers.entrySet()) {
            out.add(RaftPeer.newBuilder()
                    .setId(peerId(peer.getKey()))
                    .setAddress(peer.getValue())
                    .build());
        }
        return out;
    }

    /** Raft peers as node id to metadata address, by ascending id. */
    static Map<Integer, String> describe(Collection<RaftPeer> peers) {
        Map<Integer, String> out = new TreeMap<>();
        for (RaftPeer p : peers) {
            out.put(nodeId(p.getId()), String.valueOf(p.getAddress()));
        }
        return out;
    }

    /**
     * Asks the leader, through {@code client}, until the voters are {@code voters} or {@code timeoutMs} has
     * passed. Setting the configuration the group already has succeeds and changes nothing.
     *
     * @throws MetadataUnavailableException if the group did not take it in time
     */
    static void change(RaftClient client, Map<Integer, String> voters, long timeoutMs) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        List<RaftPeer> target = raftPeers(new TreeMap<>(voters));
        String last = "not asked";
        while (System.nanoTime() < deadline) {
            try {
                RaftClientReply reply = client.admin().setConfiguration(target);
                if (reply.isSuccess()) {
                    log.info("metadata voters are now {}", new TreeMap<>(voters));
                    return;
                }
                last = String.valueOf(reply.getException());
            } catch (IOException | RuntimeException e) {
                last = e.toString();
            }
            log.info("setting the metadata voters to {}: {}; asking again", new TreeMap<>(voters), last);
            TimeUnit.MILLISECONDS.sleep(RETRY_MS);
        }
        throw new MetadataUnavailableException("the metadata group did not take the voters " + new TreeMap<>(voters)
                + " within " + timeoutMs + " ms: " + last);
    }
}
