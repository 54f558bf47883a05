package io.ringbase.cluster.membership;

import io.ringbase.cluster.NodeId;
import java.util.concurrent.CompletableFuture;

/**
 * Tells a peer who this node is and learns what the peer remembers of it: the node-to-node
 * {@code hello} call ({@code docs/http-api.md}, "Internal API"), implemented by the transport.
 */
public interface HelloSender {

    /**
     * What a peer answered to a hello.
     *
     * @param remembered the incarnation of this node the peer last knew as a full replica, or
     *                   {@link #NONE} if it knows none
     */
    record Answer(long remembered, boolean remembers) {
        /** A peer that knows no earlier incarnation of this node. */
        public static final Answer NONE = new Answer(0, false);
    }

    /**
     * Sends {@code me} to {@code peer}.
     *
     * @return completes with the peer's answer, or exceptionally if it did not answer (unreachable,
     *         timeout, refused)
     */
    CompletableFuture<Answer> hello(NodeId peer, NodeIdentity me);
}
