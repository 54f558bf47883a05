/**
 * TLS of the node's port: the PEM files of {@code serve --tls-cert/--tls-key/--tls-ca}
 * ({@link io.ringbase.tls.TlsOptions}), read into a Netty {@code SslContext} (OpenSSL through
 * netty-tcnative when it is on the class path, the JDK's provider otherwise) and read again when they change
 * ({@link io.ringbase.tls.ServerTls}), so a renewed certificate applies to new connections without a
 * restart. Depends on nothing of Ringbase's, so the API and the cluster can both use it. Thread-safe.
 */
package io.ringbase.tls;
