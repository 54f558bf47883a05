package io.ringbase.cluster.wire;

import io.netty.channel.ChannelPipeline;
import io.ringbase.auth.RequestSigner;
import io.ringbase.cluster.rpc.ReplicaServer;
import io.ringbase.transport.ConnectionSniffer;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;

/**
 * The replica's side of the binary node-to-node protocol, served on the HTTP port: a connection whose
 * first byte is the magic's {@code 0x89} (no HTTP method starts with it) gets a {@link FrameDecoder} and
 * a {@link ServerConnection} instead of the HTTP handlers. Its calls are served by the
 * {@link ReplicaServer} that serves the HTTP internal API, by the same rules. Thread-safe.
 */
public final class WireServer implements ConnectionSniffer {

    final ReplicaServer server;
    final RequestSigner signer;
    final String clusterName;

    /**
     * @param server      serves each call ({@link ReplicaServer#serve}) and checks the peer's membership
     * @param signer      checks the peer's proof of the cluster secret ({@link RequestSigner#NONE}: any peer)
     * @param clusterName this node's cluster name; a peer of another is refused
     */
    public WireServer(ReplicaServer server, RequestSigner signer, String clusterName) {
        this.server = server;
        this.signer = signer;
        this.clusterName = clusterName;
    }

    @Override
    public boolean matches(byte first) {
        return first == WireFormat.MAGIC[0];
    }

    @Override
    public void install(ChannelPipeline pipeline, Executor workers, @Nullable String refusal) {
        pipeline.addLast("frames", new FrameDecoder("server", true))
                .addLast("calls", new ServerConnection(this, workers, refusal));
    }
}
