package io.ringbase.tls;

import java.net.Socket;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.function.Supplier;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;
import org.jspecify.annotations.Nullable;

/**
 * A key manager that asks, at every call, the one {@link ServerTls} loaded last: a TLS stack that takes a
 * {@code KeyManager} once (Apache Ratis's gRPC transport builds its contexts at start) presents a renewed
 * certificate in the handshakes that follow a reload. Every key manager {@link ServerTls} loads holds one
 * entry under one alias, so an alias chosen before a reload still names the entry after it. Thread-safe.
 */
final class ReloadingKeyManager extends X509ExtendedKeyManager {

    private final Supplier<X509ExtendedKeyManager> current;

    ReloadingKeyManager(Supplier<X509ExtendedKeyManager> current) {
        this.current = current;
    }

    @Override
    public String @Nullable [] getClientAliases(String keyType, Principal @Nullable [] issuers) {
        return current.get().getClientAliases(keyType, issuers);
    }

    @Override
    public @Nullable String chooseClientAlias(
            String[] keyType, Principal @Nullable [] issuers, @Nullable Socket socket) {
        return current.get().chooseClientAlias(keyType, issuers, socket);
    }

    @Override
    public @Nullable String chooseEngineClientAlias(
            String[] keyType, Principal @Nullable [] issuers, @Nullable SSLEngine engine) {
        return current.get().chooseEngineClientAlias(keyType, issuers, engine);
    }

    @Override
    public String @Nullable [] getServerAliases(String keyType, Principal @Nullable [] issuers) {
        return current.get().getServerAliases(keyType, issuers);
    }

    @Override
    public @Nullable String chooseServerAlias(String keyType, Principal @Nullable [] issuers, @Nullable Socket socket) {
        return current.get().chooseServerAlias(keyType, issuers, socket);
    }

    @Override
    public @Nullable String chooseEngineServerAlias(
            String keyType, Principal @Nullable [] issuers, @Nullable SSLEngine engine) {
        return current.get().chooseEngineServerAlias(keyType, issuers, engine);
    }

    @Override
    public X509Certificate @Nullable [] getCertificateChain(String alias) {
        return current.get().getCertificateChain(alias);
    }

    @Override
    public @Nullable PrivateKey getPrivateKey(String alias) {
        return current.get().getPrivateKey(alias);
    }
}
