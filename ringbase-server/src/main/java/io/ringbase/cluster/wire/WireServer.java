package io.ringbase.cluster.wire;

import io.netty.channel.ChannelPipeline;
import io.netty.handler.timeout.IdleStateHandler;
import io.ringbase.auth.RequestSigner;
import io.ringbase.cluster.rpc.ReplicaServer;
import io.ringbase.logging.LogThrottle;
import io.ringbase.transport.ConnectionSniffer;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The replica's side of the binary node-to-node protocol, served on the HTTP port: a connection whose
 * first byte is the magic's {@code 0x89} (no HTTP method starts with it) gets a {@link FrameDecoder} and
 * a {@link ServerConnection} instead of the HTTP handlers. Its calls are served by the
 * {@link ReplicaServer} that serves the HTTP internal API, by the same rules. Thread-safe.
 */
public final class WireServer implements ConnectionSniffer {

    /**
     * A connection that has not completed its handshake this long after its magic arrived is closed, ms:
     * a client gives up on its own after {@link WireClient#MAX_HANDSHAKE_MS}, so only a stalled or
     * hostile peer is still there, holding a connection that no idle timeout of HTTP covers any more.
     */
    static final long HANDSHAKE_TIMEOUT_MS = 10_000;

    /**
     * A connection that has read nothing for this long is closed, ms: three of the clients' keep-alive
     * pings ({@link WireClient#KEEPALIVE_MS}) missed, a peer gone without closing (its host lost, a
     * partition that outlived the connection).
     */
    static final long IDLE_TIMEOUT_MS = 3 * WireClient.KEEPALIVE_MS;

    final ReplicaServer server;
    /** Connections closed for a stalled handshake or silence: one WARN line a minute for them all. */
    final LogThrottle closedLog = new LogThrottle(1, TimeUnit.MINUTES);

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
        pipeline.addLast("idle", new IdleStateHandler(IDLE_TIMEOUT_MS, 0, 0, TimeUnit.MILLISECONDS))
                .addLast("frames", new FrameDecoder("server", true))
                .addLast("calls", new ServerConnection(this, workers, refusal));
    }
}
