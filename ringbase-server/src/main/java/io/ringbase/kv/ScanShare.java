package io.ringbase.kv;

import java.util.List;
import java.util.Set;

/**
 * One share of a distributed function job, as a range scan can be asked to keep it (docs/functions.md,
 * "How a job is distributed"): the keys whose replicas, without {@code down}, begin with exactly
 * {@code path}, computed from the placement of {@code epoch}. Nodes are named by their URL. A value: the
 * cluster turns it into a key filter ({@code io.ringbase.cluster.ring.ShareFilter}) and sends it to the
 * replicas, so that they leave out the other keys before sending their pages.
 *
 * @param epoch the placement epoch the share was computed at (0 for a static topology)
 * @param down  the nodes the job's coordinator believed down when the job started
 * @param path  the nodes that had the share in turn, the one that has it now last; not empty
 */
public record ScanShare(long epoch, Set<String> down, List<String> path) {

    /**
     * Copies the sets.
     *
     * @throws IllegalArgumentException if {@code path} is empty
     */
    public ScanShare {
        if (path.isEmpty()) {
            throw new IllegalArgumentException("a share's path names at least one node");
        }
        down = Set.copyOf(down);
        path = List.copyOf(path);
    }
}
