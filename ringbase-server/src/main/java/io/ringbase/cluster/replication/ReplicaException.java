package io.ringbase.cluster.replication;

import io.ringbase.cluster.NodeId;

/** Why a call to a {@link Replica} failed; keeps its cause. */
public abstract sealed class ReplicaException extends Exception {

    private final NodeId node;

    private ReplicaException(NodeId node, String message, Throwable cause) {
        super(node + ": " + message, cause);
        this.node = node;
    }

    public NodeId node() {
        return node;
    }

    /** No connection could be made: the request was not sent. */
    public static final class Unreachable extends ReplicaException {
        public Unreachable(NodeId node, Throwable cause) {
            super(node, "unreachable (" + cause + ")", cause);
        }
    }

    /** No answer within the replica timeout: the request may or may not have been applied. */
    public static final class Timeout extends ReplicaException {
        public Timeout(NodeId node, long timeoutMs) {
            super(node, "no answer within " + timeoutMs + " ms", null);
        }
    }

    /** The replica answered with an error status, or the connection broke mid-request. */
    public static final class Failed extends ReplicaException {
        public Failed(NodeId node, String what, Throwable cause) {
            super(node, what, cause);
        }
    }
}
