package io.ringbase.node;

import io.netty.handler.codec.http.HttpMethod;
import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.replication.Coordinator;
import io.ringbase.cluster.replication.Replica;
import io.ringbase.cluster.ring.Placement;
import io.ringbase.cluster.ring.Ring;
import io.ringbase.cluster.ring.ShareAssignment;
import io.ringbase.cluster.rpc.ReplicaClient;
import io.ringbase.functions.JobCluster;
import io.ringbase.functions.ShareFailedException;
import io.ringbase.kv.Quorum;
import io.ringbase.storage.KeyFilter;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;

/**
 * The cluster as distributed function jobs see it ({@link JobCluster}): the current ring of the node's
 * placement, the coordinator's view of which nodes are up, {@link ShareAssignment} for the shares, and the
 * internal client for {@code POST /internal/v0/process-share}. It lives here, where the node is assembled,
 * so that the functions know nothing of the cluster and the cluster nothing of the functions.
 */
final class ClusterJobs implements JobCluster {

    /** The internal path of a share's page. */
    static final String PROCESS_SHARE = "/internal/v0/process-share";

    private final Supplier<Placement> placement;
    private final Coordinator coordinator;
    private final ReplicaClient client;

    ClusterJobs(Supplier<Placement> placement, Coordinator coordinator, ReplicaClient client) {
        this.placement = placement;
        this.coordinator = coordinator;
        this.client = client;
    }

    @Override
    public String self() {
        return placement.get().self().toString();
    }

    @Override
    public long epoch() {
        return placement.get().epoch();
    }

    @Override
    public List<String> nodes() {
        List<String> out = new ArrayList<>();
        for (NodeId n : placement.get().current().nodes()) {
            out.add(n.toString());
        }
        return out;
    }

    @Override
    public Set<String> down() throws IOException {
        List<Replica> up;
        try {
            up = coordinator.upReplicas(nodesNeeded()).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while probing replicas");
        } catch (ExecutionException e) {
            throw new IOException("probing replicas failed", e.getCause());
        }
        Set<String> down = new HashSet<>(nodes());
        for (Replica r : up) {
            down.remove(r.node().toString());
        }
        return down;
    }

    @Override
    public int nodesNeeded() {
        Placement p = placement.get();
        return p.current().size() - Quorum.majority(p.replicationFactor()) + 1;
    }

    @Override
    public KeyFilter share(Set<String> down, List<String> path) {
        Placement p = placement.get();
        ShareAssignment assignment = assignment(p, down);
        List<NodeId> nodes = ids(p, path);
        return key -> assignment.inShare(key, nodes);
    }

    @Override
    public boolean canHandOn(Set<String> down, List<String> path) {
        Placement p = placement.get();
        return assignment(p, down).canHandOn(ids(p, path));
    }

    @Override
    public CompletableFuture<byte[]> call(String node, byte[] request, long timeoutMs) {
        NodeId id = placement.get().byUrl(node);
        if (id == null) {
            return CompletableFuture.failedFuture(new ShareFailedException(node, false, 0, "not in the ring", null));
        }
        CompletableFuture<byte[]> out = new CompletableFuture<>();
        var unused = client.send(id, HttpMethod.POST, PROCESS_SHARE, request, timeoutMs)
                .whenComplete((r, failure) -> {
                    if (failure != null) {
                        out.completeExceptionally(
                                new ShareFailedException(node, false, 0, "no answer: " + failure, failure));
                    } else if (r.status() != 200) {
                        out.completeExceptionally(new ShareFailedException(
                                node, true, r.status(), new String(r.body(), StandardCharsets.UTF_8).strip(), null));
                    } else {
                        out.complete(r.body());
                    }
                });
        return out;
    }

    private static ShareAssignment assignment(Placement p, Set<String> down) {
        Ring ring = p.current();
        return new ShareAssignment(ring, p.replicationFactor(), new HashSet<>(ids(p, down)));
    }

    private static List<NodeId> ids(Placement p, java.util.Collection<String> urls) {
        List<NodeId> out = new ArrayList<>(urls.size());
        for (String u : urls) {
            NodeId n = p.byUrl(u);
            if (n == null) {
                throw new IllegalArgumentException("node " + u + " is not in the ring");
            }
            out.add(n);
        }
        return out;
    }
}
