package io.ringbase.cluster.rpc;

import io.ringbase.cluster.membership.HelloSender;
import io.ringbase.cluster.membership.LocalMembership;
import io.ringbase.cluster.membership.Membership;
import io.ringbase.cluster.membership.NodeState;
import io.ringbase.cluster.replication.ReadGate;
import java.io.IOException;
import org.jspecify.annotations.Nullable;

/**
 * What the {@link ReplicaServer} checks a request against before it serves it: the sender's membership
 * ({@link InternalProtocol#MEMBERSHIP} must equal this node's digest, else 409 naming this node's), and for
 * replica reads this node's {@link ReadGate} (503 while it streams its lost data back). It also answers
 * peers' hellos. Immutable and thread-safe.
 */
public final class PeerGate {

    /** Answers a peer's hello; see {@link LocalMembership#onHello}. */
    @FunctionalInterface
    public interface HelloHandler {
        HelloSender.Answer onHello(String url, long incarnation, NodeState state) throws IOException;
    }

    private final String selfUrl;
    private final Membership membership;
    private final String digest;
    private final ReadGate reads;
    private final HelloHandler hello;

    private PeerGate(String selfUrl, Membership membership, ReadGate reads, HelloHandler hello) {
        this.selfUrl = selfUrl;
        this.membership = membership;
        this.digest = membership.digestHex();
        this.reads = reads;
        this.hello = hello;
    }

    /** The gate of a member of a cluster: its membership, its read gate and its hello answers. */
    public static PeerGate of(String selfUrl, LocalMembership local) {
        return of(selfUrl, local.membership(), local, local::onHello);
    }

    /**
     * A gate from its parts.
     *
     * @param selfUrl    this node's URL, named in refusals
     * @param membership what every request must carry the digest of
     * @param reads      whether replica reads may be answered
     * @param hello      answers peers' hellos
     */
    public static PeerGate of(String selfUrl, Membership membership, ReadGate reads, HelloHandler hello) {
        return new PeerGate(selfUrl, membership, reads, hello);
    }

    /**
     * The gate of a node alone: requests must carry its membership (a node of a cluster that reaches it
     * by mistake is refused), reads are open, and it remembers no peer.
     */
    public static PeerGate alone(String selfUrl, Membership membership) {
        return new PeerGate(selfUrl, membership, ReadGate.OPEN, (url, incarnation, state) -> HelloSender.Answer.NONE);
    }

    /** The cluster's name ({@code --cluster-name}). */
    public String clusterName() {
        return membership.clusterName();
    }

    /** This node's membership digest, the value its requests carry in {@link InternalProtocol#MEMBERSHIP}. */
    public String digest() {
        return digest;
    }

    /**
     * {@code null} if a request carrying {@code header} (the value of {@link InternalProtocol#MEMBERSHIP},
     * or {@code null} if absent) comes from a node of this membership; else the 409 answer's text, one line.
     */
    @Nullable
    String refusal(@Nullable String header) {
        if (digest.equals(header)) {
            return null;
        }
        return "membership mismatch: node " + selfUrl + " has " + membership.describe() + "; the request has "
                + (header == null
                        ? "no " + InternalProtocol.MEMBERSHIP + " header (not a Ringbase node of this version)"
                        : "membership " + header);
    }

    /** {@code null} if replica reads may be answered, else the 503 answer's text. */
    @Nullable
    String readRefusal() {
        return reads.readRefusal();
    }

    HelloSender.Answer hello(String url, long incarnation, NodeState state) throws IOException {
        return hello.onHello(url, incarnation, state);
    }
}
