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
 */
public record TlsOptions(
        Path certFile, Path keyFile, @Nullable Path caFile, long reloadIntervalMs) {

    public static final long DEFAULT_RELOAD_INTERVAL_MS = 5_000;

    public TlsOptions {
        Objects.requireNonNull(certFile, "certFile");
        Objects.requireNonNull(keyFile, "keyFile");
        if (reloadIntervalMs < 1) {
            throw new IllegalArgumentException("TLS reload interval must be at least 1 ms, got " + reloadIntervalMs);
        }
    }

    /** Whether clients must present a certificate signed by {@link #caFile()} (mutual TLS). */
    public boolean requiresClientCertificates() {
        return caFile != null;
    }
}
