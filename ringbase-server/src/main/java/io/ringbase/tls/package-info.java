/**
 * TLS of the node's port: the PEM files of {@code serve --tls-cert/--tls-key/--tls-ca}
 * ({@link io.ringbase.tls.TlsOptions}), read into a Netty {@code SslContext} (OpenSSL through
 * netty-tcnative when it is on the class path, the JDK's provider otherwise) and read again when they change
 * ({@link io.ringbase.tls.ServerTls}), so a renewed certificate applies to new connections without a
 * restart. With {@code https://} cluster URLs the same files make the client side of the node's calls to
 * its peers (mutual TLS), and {@link io.ringbase.tls.PeerCertificates} is the one rule that serves
 * node-to-node traffic only to a peer that presented a certificate of the CA. Depends on nothing of
 * Ringbase's but its file watch and log throttle, so the API and the cluster can both use it. Thread-safe.
 */
package io.ringbase.tls;
