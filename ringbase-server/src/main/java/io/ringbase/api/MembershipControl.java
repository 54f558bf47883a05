package io.ringbase.api;

import java.io.IOException;

/**
 * What the admin API needs of a node's elastic membership: {@code /v0/admin/decommission} and
 * {@code /v0/admin/cleanup}.
 */
public interface MembershipControl {

    /** A node whose membership is a static list: neither applies. */
    MembershipControl NONE = new MembershipControl() {
        @Override
        public String decommission() {
            throw new IllegalStateException(
                    "this node's membership is a static --cluster list: start the cluster with --metadata-port-offset"
                            + " to decommission nodes");
        }

        @Override
        public String changeJson() {
            return "{\"kind\":\"none\",\"phase\":\"idle\"}";
        }

        @Override
        public String remove(int nodeId) {
            throw new IllegalStateException(
                    "this node's membership is a static --cluster list: change the list on every node instead");
        }

        @Override
        public String cleanup() {
            throw new IllegalStateException(
                    "this node's membership is a static --cluster list: every node holds the keys it always held");
        }
    };

    /**
     * Starts this node's decommission in the background.
     *
     * @return {@link #changeJson()} right after starting
     * @throws IllegalStateException (answered 409) if it cannot start: not NORMAL, or a change is running
     */
    String decommission();

    /** The membership change this node drives, as one JSON object (kind, phase, epoch, progress). */
    String changeJson();

    /**
     * Removes the dead node {@code nodeId} from the cluster; the nodes that take over its keys stream them
     * from their other replicas.
     *
     * @return {@code {"removed": id, "epoch": e}}
     * @throws IllegalStateException (answered 409) if the cluster refuses it or cannot commit it
     */
    String remove(int nodeId);

    /**
     * Drops the keys this node no longer replicates under the current placement (after a join moved them
     * away), without tombstones.
     *
     * @return {@code {"dropped": n, "epoch": e}}
     * @throws IllegalStateException (answered 409) while a membership change is in progress, or while a node
     *                               has not reached this node's epoch
     * @throws IOException           if the engine fails
     */
    String cleanup() throws IOException;
}
