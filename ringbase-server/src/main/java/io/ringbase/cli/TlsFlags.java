package io.ringbase.cli;

import io.ringbase.tls.TlsOptions;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/**
 * The TLS flags of {@code serve}: the node's certificate and key, the CA its clients' certificates must be
 * signed by, and how often the files are looked at for a change, parsed into {@link TlsOptions}
 * (docs/operations.md, "TLS").
 */
final class TlsFlags {

    @Option(
            names = "--tls-cert",
            paramLabel = "FILE",
            description = "This node's TLS certificate chain, PEM; with --tls-key the port speaks only TLS (https://) "
                    + "and plain HTTP gets 400. Reloaded when it changes (default: none, plain HTTP).")
    @Nullable
    Path cert;

    @Option(
            names = "--tls-key",
            paramLabel = "FILE",
            description = "The private key of --tls-cert, unencrypted PKCS#8 PEM (-----BEGIN PRIVATE KEY-----). "
                    + "Reloaded when it changes (default: none).")
    @Nullable
    Path key;

    @Option(
            names = "--tls-ca",
            paramLabel = "FILE",
            description = "CA certificates, PEM: clients must then present a certificate signed by one of them "
                    + "(mutual TLS) or the handshake fails; with https:// --cluster URLs only node-to-node traffic "
                    + "must, and nodes check each other's certificates against it "
                    + "(default: none, clients present no certificate).")
    @Nullable
    Path ca;

    @Option(
            names = "--tls-reload-interval",
            defaultValue = "5s",
            paramLabel = "DURATION",
            description = "How often the TLS files are looked at for a change (modification time and size); a "
                    + "changed set is loaded for new connections, a bad one logs a WARN line and keeps the old "
                    + "(default: ${DEFAULT-VALUE}).")
    TimeSpan reloadInterval = new TimeSpan(TlsOptions.DEFAULT_RELOAD_INTERVAL_MS);

    /**
     * The TLS of the flags, or {@code null} for plain HTTP.
     *
     * @param nodeToNode whether the node's peers are called over TLS ({@link ClusterTls})
     * @throws IllegalArgumentException naming the flag that is missing
     */
    @Nullable
    TlsOptions options(boolean nodeToNode) {
        if (cert == null && key == null) {
            if (ca != null) {
                throw new IllegalArgumentException("--tls-ca needs --tls-cert and --tls-key");
            }
            return null;
        }
        if (cert == null || key == null) {
            throw new IllegalArgumentException("--tls-cert and --tls-key go together: give both or neither");
        }
        return new TlsOptions(cert, key, ca, Math.max(1, reloadInterval.millis()), nodeToNode);
    }
}
