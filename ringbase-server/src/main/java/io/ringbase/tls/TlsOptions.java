package io.ringbase.tls;

import java.nio.file.Path;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Where a node's TLS certificate and key are, and whom it trusts as clients.
 *
 * @param certFile         the certificate chain, PEM ({@code serve --tls-cert}): this node's certificate first,
 *                         then any intermediates
 * @param keyFile          the certificate's private key, unencrypted PKCS#8 PEM ({@code -----BEGIN PRIVATE
 *                         KEY-----}; {@code serve --tls-key})
 * @param caFile           CA certificates, PEM, that a client's certificate must be signed by
 *                         ({@code serve --tls-ca}); {@code null}: clients present none (server-only TLS)
 * @param reloadIntervalMs how often the files are looked at for a change, ms ({@code serve
 *                         --tls-reload-interval}, default {@value #DEFAULT_RELOAD_INTERVAL_MS}); at least 1
 * @param nodeToNode       whether the node's peers are called over TLS too ({@code https://} URLs in
 *                         {@code --cluster}): the node then presents {@code certFile} to its peers and checks
 *                         theirs against {@code caFile}, which is required, and its port asks clients for a
 *                         certificate without requiring one (only node-to-node traffic must present one)
 */
public record TlsOptions(
        Path certFile, Path keyFile, @Nullable Path caFile, long reloadIntervalMs, boolean nodeToNode) {

    public static final long DEFAULT_RELOAD_INTERVAL_MS = 5_000;

    public TlsOptions {
        Objects.requireNonNull(certFile, "certFile");
        Objects.requireNonNull(keyFile, "keyFile");
        if (reloadIntervalMs < 1) {
            throw new IllegalArgumentException("TLS reload interval must be at least 1 ms, got " + reloadIntervalMs);
        }
        if (nodeToNode && caFile == null) {
            throw new IllegalArgumentException(
                    "TLS between nodes needs a CA (--tls-ca) to check the other nodes' certificates against");
        }
    }

    /** The TLS of a node's own port only: its peers, if any, are called in plain HTTP. */
    public TlsOptions(Path certFile, Path keyFile, @Nullable Path caFile, long reloadIntervalMs) {
        this(certFile, keyFile, caFile, reloadIntervalMs, false);
    }

    /**
     * Whether every client must present a certificate signed by {@link #caFile()} (mutual TLS for all): with
     * a CA on a node whose peers are not called over TLS. With {@link #nodeToNode()} a certificate is asked
     * for but only node-to-node traffic must present one, so clients that authenticate by token still connect.
     */
    public boolean requiresClientCertificates() {
        return caFile != null && !nodeToNode;
    }

    /** Whether clients are asked for a certificate signed by {@link #caFile()}, required or not. */
    public boolean asksClientCertificates() {
        return caFile != null;
    }
}
