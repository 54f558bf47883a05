package io.ringbase.cluster.metadata;

import io.ringbase.tls.PeerKeys;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClientRpc;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.netty.NettyConfigKeys;
import org.apache.ratis.netty.NettyFactory;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.rpc.SupportedRpcType;
import org.jspecify.annotations.Nullable;

/**
 * Which Apache Ratis transport the metadata group runs on, and its settings: Netty over NIO when the group's
 * port is plain (the default), gRPC with mutual TLS ({@link JdkTlsGrpc}) when {@link MetadataOptions#tls()}
 * is set. Ratis's Netty transport has no TLS (only its data stream, unused here, has); its gRPC one has. The
 * plain default stays on Netty, as before, so a plain cluster's wire and threads do not change. Stateless.
 */
final class MetadataTransport {

    private MetadataTransport() {}

    /** Sets the client side: the RPC type (and, for Netty, NIO rather than the shaded native epoll). */
    static void configureClient(RaftProperties p, @Nullable PeerKeys tls) {
        if (tls == null) {
            RaftConfigKeys.Rpc.setType(p, SupportedRpcType.NETTY);
            NettyConfigKeys.Client.setUseEpoll(p, false);
        } else {
            RaftConfigKeys.Rpc.setType(p, new JdkTlsGrpc());
        }
    }

    /** Sets the server side: where it listens (with gRPC, its admin and client services share that port). */
    static void configureServer(RaftProperties p, String host, int port, @Nullable PeerKeys tls) {
        if (tls == null) {
            NettyConfigKeys.Server.setHost(p, host);
            NettyConfigKeys.Server.setPort(p, port);
            NettyConfigKeys.Server.setUseEpoll(p, false); // NIO, as the client
        } else {
            GrpcConfigKeys.Server.setHost(p, host);
            GrpcConfigKeys.Server.setPort(p, port);
        }
    }

    /** The parameters a server and a client are built with: the node's TLS keys, if any. */
    static Parameters parameters(@Nullable PeerKeys tls) {
        return tls == null ? new Parameters() : JdkTlsGrpc.parameters(tls);
    }

    /** A client RPC of the transport of {@code tls}. */
    static RaftClientRpc newClientRpc(RaftProperties properties, Parameters parameters, @Nullable PeerKeys tls) {
        return tls == null
                ? new NettyFactory(parameters).newRaftClientRpc(ClientId.randomId(), properties)
                : JdkTlsGrpc.newClientRpc(ClientId.randomId(), properties, parameters);
    }
}
