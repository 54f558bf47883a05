package io.ringbase.tls;

import java.util.Objects;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * A node's side of mutual TLS with its peers as JDK managers, for a TLS stack that takes them rather than a
 * Netty {@code SslContext} of the node's own Netty (the metadata group's Raft transport, Apache Ratis over
 * gRPC, builds its contexts with Ratis's shaded Netty). {@link ServerTls#peerKeys()} gives managers that ask
 * the files loaded last at every call, so a renewed certificate applies to the handshakes that follow.
 *
 * @param keys  this node's certificate chain and private key ({@code --tls-cert}, {@code --tls-key}),
 *              presented as a server and as a client
 * @param trust the CA every peer's certificate must chain to ({@code --tls-ca}); as a client it checks the
 *              peer's host name too when the engine asks for {@code HTTPS} endpoint identification
 */
public record PeerKeys(X509ExtendedKeyManager keys, X509ExtendedTrustManager trust) {

    public PeerKeys {
        Objects.requireNonNull(keys, "keys");
        Objects.requireNonNull(trust, "trust");
    }
}
