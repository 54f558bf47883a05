package io.ringbase.cluster.rpc;

import io.netty.handler.codec.http.HttpMethod;
import io.ringbase.cluster.NodeId;
import io.ringbase.cluster.membership.HelloSender;
import io.ringbase.cluster.membership.NodeIdentity;
import io.ringbase.cluster.replication.ReplicaException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/** {@link HelloSender} over the node-to-node API's {@link InternalProtocol#HELLO}. Thread-safe. */
public final class RemoteHello implements HelloSender {

    private final ReplicaClient client;
    private final String selfUrl;

    /**
     * @param client  the node's replica client
     * @param selfUrl this node's URL, as its peers list it
     */
    public RemoteHello(ReplicaClient client, String selfUrl) {
        this.client = client;
        this.selfUrl = selfUrl;
    }

    @Override
    public CompletableFuture<Answer> hello(NodeId peer, NodeIdentity me) {
        return client.send(peer, HttpMethod.POST, InternalProtocol.HELLO, InternalProtocol.helloBody(selfUrl, me))
                .thenApply(r -> {
                    if (r.status() != 200) {
                        throw new CompletionException(new ReplicaException.Failed(
                                peer,
                                "hello answered " + r.status() + ": "
                                        + new String(r.body(), StandardCharsets.UTF_8).trim(),
                                null));
                    }
                    try {
                        return InternalProtocol.parseHelloAnswer(r.body());
                    } catch (IllegalArgumentException e) {
                        throw new CompletionException(new ReplicaException.Failed(peer, "undecodable hello answer", e));
                    }
                });
    }
}
