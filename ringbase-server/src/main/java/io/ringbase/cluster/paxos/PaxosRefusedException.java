package io.ringbase.cluster.paxos;

import java.io.IOException;

/**
 * This node's acceptor takes no part in a Paxos request now ({@link PaxosAdmission#refusal}); nothing was
 * read or changed. The node-to-node server answers it 503 (protocol v2: ERROR {@code 2} REFUSED); the
 * proposer counts the replica as failed.
 */
public final class PaxosRefusedException extends IOException {

    private static final long serialVersionUID = 1L;

    /** @param why one line: why this node refuses */
    public PaxosRefusedException(String why) {
        super(why);
    }
}
