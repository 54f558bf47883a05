package io.ringbase.cluster.metadata;

import io.ringbase.tls.LoggingTrustManager;
import io.ringbase.tls.PeerKeys;
import java.util.Objects;
import javax.net.ssl.SSLException;
import org.apache.ratis.client.RaftClientRpc;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcFactory;
import org.apache.ratis.grpc.client.GrpcClientRpc;
import org.apache.ratis.grpc.server.GrpcServices;
import org.apache.ratis.grpc.server.GrpcServicesImpl;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.rpc.RpcFactory;
import org.apache.ratis.rpc.RpcType;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.thirdparty.io.grpc.netty.GrpcSslContexts;
import org.apache.ratis.thirdparty.io.netty.handler.ssl.ClientAuth;
import org.apache.ratis.thirdparty.io.netty.handler.ssl.SslContext;
import org.apache.ratis.thirdparty.io.netty.handler.ssl.SslContextBuilder;
import org.apache.ratis.thirdparty.io.netty.handler.ssl.SslProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Apache Ratis's gRPC transport with mutual TLS whose contexts use the JDK's TLS provider, a user-defined
 * Ratis {@link RpcType} (Ratis makes it from its class name, {@code raft.rpc.type}). Ratis's own gRPC TLS
 * ({@code GrpcConfigKeys.TLS}, {@code GrpcTlsConfig}) builds its server context with the OpenSSL provider
 * only ({@code GrpcUtil.buildSslContextForServer}), which needs the shaded netty-tcnative of
 * ratis-thirdparty-misc: 6 MB of native libraries the release tarball leaves out (src/assembly/
 * ratis-thirdparty-lean.xml). The JDK's provider does ALPN (which gRPC's HTTP/2 needs) since Java 9, and the
 * metadata traffic is a few messages a second, so this builds the same contexts with it, from the node's
 * {@link PeerKeys}: the server requires a client certificate that chains to the CA; the client presents the
 * node's certificate and checks the server's chain and host name (gRPC sets {@code HTTPS} endpoint
 * identification on its engine: the host of the peer's metadata address must be a subjectAltName of its
 * certificate). The contexts are built once, at start; the {@link PeerKeys} managers ask the files loaded
 * last at every handshake, so a renewed certificate or CA applies to the connections opened after it.
 * Everything else (log appender, services, ports) is Ratis's gRPC factory unchanged.
 */
final class JdkTlsGrpc implements RpcType {

    private static final Logger log = LoggerFactory.getLogger(JdkTlsGrpc.class);

    /** The key of the node's {@link PeerKeys} among a server's or client's Ratis {@link Parameters}. */
    static final String KEYS_PARAMETER = "ringbase.metadata.tls.keys";

    JdkTlsGrpc() {}

    /** The parameters a server and its clients are built with: {@code keys}. */
    static Parameters parameters(PeerKeys keys) {
        Parameters parameters = new Parameters();
        parameters.put(KEYS_PARAMETER, keys, PeerKeys.class);
        return parameters;
    }

    @Override
    public String name() {
        return JdkTlsGrpc.class.getName(); // not a SupportedRpcType name: Ratis loads this class by it
    }

    @Override
    public RpcFactory newFactory(Parameters parameters) {
        return new Factory(parameters);
    }

    /** Ratis's gRPC factory with the TLS contexts made here (see {@link JdkTlsGrpc}). */
    static final class Factory extends GrpcFactory {

        private final Parameters parameters;
        private final SslContext server;
        private final SslContext client;

        Factory(Parameters parameters) {
            super(parameters); // no GrpcTlsConfig among them: the contexts it would build are never asked for
            this.parameters = parameters;
            PeerKeys keys = Objects.requireNonNull(
                    parameters.get(KEYS_PARAMETER, PeerKeys.class), "TLS keys among the Ratis parameters");
            try {
                LoggingTrustManager trust = new LoggingTrustManager(keys.trust(), "metadata group", log);
                server = GrpcSslContexts.configure(SslContextBuilder.forServer(keys.keys()), SslProvider.JDK)
                        .trustManager(trust)
                        .clientAuth(ClientAuth.REQUIRE)
                        .build();
                client = GrpcSslContexts.configure(SslContextBuilder.forClient(), SslProvider.JDK)
                        .keyManager(keys.keys())
                        .trustManager(trust)
                        .build();
            } catch (SSLException e) {
                throw new IllegalStateException("the metadata group's TLS contexts cannot be built: " + e, e);
            }
        }

        @Override
        public GrpcServices newRaftServerRpc(RaftServer raftServer) {
            // as GrpcFactory's, with these contexts: the server's own port (its admin and client services share
            // it), and the client side of its calls to the other servers
            return GrpcServicesImpl.newBuilder()
                    .setServer(raftServer)
                    .setCustomizer(GrpcConfigKeys.Server.servicesCustomizer(parameters))
                    .setAdminSslContext(server)
                    .setServerSslContextForServer(server)
                    .setServerSslContextForClient(client)
                    .setClientSslContext(server)
                    .build();
        }

        @Override
        public GrpcClientRpc newRaftClientRpc(ClientId clientId, RaftProperties properties) {
            return new GrpcClientRpc(clientId, properties, client, client);
        }
    }

    /** A client RPC of this transport, presenting {@code parameters}' keys. */
    static RaftClientRpc newClientRpc(ClientId clientId, RaftProperties properties, Parameters parameters) {
        return new Factory(parameters).newRaftClientRpc(clientId, properties);
    }
}
