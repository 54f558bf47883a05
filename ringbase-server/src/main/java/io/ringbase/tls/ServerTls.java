package io.ringbase.tls;

import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.ringbase.reload.FileWatch;
import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509ExtendedTrustManager;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server side of a node's TLS: an {@link SslContext} built from {@link TlsOptions}' PEM files and built
 * again when they change. A daemon thread looks at the files' modification times and sizes every
 * {@link TlsOptions#reloadIntervalMs()}; when one moved it reads them all, checks that the key belongs to the
 * certificate, and swaps the context: connections accepted from then on use the new certificate, open ones
 * keep theirs. Files that cannot be used keep the context loaded before and log one WARN line, not repeated
 * until they change again (a renewed certificate seen before its key is such a case: the next poll after
 * the key is written loads both). Thread-safe.
 *
 * <p>The provider is OpenSSL (BoringSSL through netty-tcnative) when {@link OpenSsl#isAvailable()}, the
 * JDK's otherwise. With a CA file, clients must present a certificate it signed ({@link ClientAuth#REQUIRE}).
 *
 * <p>With {@link TlsOptions#nodeToNode()} it also holds the client side of the node's calls to its peers
 * ({@link #client()}), built and reloaded from the same files: the node presents its own certificate and
 * checks the peer's against the CA, host name included (RFC 2818 / RFC 6125: the host of the peer's URL
 * must be a DNS or IP subject alternative name of its certificate). The port then asks clients for a
 * certificate without requiring one ({@link ClientAuth#OPTIONAL}): clients that authenticate by token
 * connect without, and node-to-node traffic is refused without one ({@link PeerCertificates}). A
 * certificate that does not chain to the CA fails the handshake either way.
 */
public final class ServerTls implements Supplier<SslContext>, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ServerTls.class);

    private final TlsOptions options;
    private final FileWatch watch;
    private volatile SslContext context;
    private volatile @Nullable SslContext clientContext;
    private volatile @Nullable JdkPeer jdkPeer;
    private volatile X509Certificate certificate;

    private ServerTls(TlsOptions options, Loaded loaded, FileWatch watch) {
        this.options = options;
        this.context = loaded.context();
        this.clientContext = loaded.client();
        this.jdkPeer = loaded.jdkPeer();
        this.certificate = loaded.certificate();
        this.watch = watch;
        watch.start(options.reloadIntervalMs(), this::reload);
    }

    /**
     * Loads the files of {@code options} and starts watching them.
     *
     * @throws TlsException naming the file that cannot be read or used
     */
    public static ServerTls open(TlsOptions options) throws TlsException {
        FileWatch watch = new FileWatch("tls-reload", files(options));
        Loaded loaded = load(options);
        log.info(
                "TLS on: certificate {} (valid until {}) from {}, provider {}{}",
                loaded.certificate().getSubjectX500Principal().getName(),
                loaded.certificate().getNotAfter().toInstant(),
                options.certFile(),
                provider(),
                options.requiresClientCertificates()
                        ? "; clients must present a certificate signed by " + options.caFile()
                        : options.nodeToNode()
                                ? "; peers are called over TLS, and node-to-node traffic must present a certificate"
                                        + " signed by " + options.caFile()
                                : "");
        return new ServerTls(options, loaded, watch);
    }

    /** The context for the next accepted connection. */
    @Override
    public SslContext get() {
        return context;
    }

    /**
     * The client side of calls to the node's peers: each call to {@link Supplier#get()} gives the context
     * loaded last, so connections opened after a reload present the new certificate; {@code null} unless
     * {@link TlsOptions#nodeToNode()}. A handler made of it must be given the peer's host and port
     * ({@link SslContext#newHandler(io.netty.buffer.ByteBufAllocator, String, int)}) for the host name check.
     */
    public @Nullable Supplier<SslContext> client() {
        return options.nodeToNode() ? () -> java.util.Objects.requireNonNull(clientContext) : null;
    }

    /**
     * As {@link #client()}, as a JDK {@link SSLContext} for {@link java.net.http.HttpClient} (the status page's
     * calls to its peers, which check the host name as any {@code https://} client does); a new instance
     * after each reload. {@code null} unless {@link TlsOptions#nodeToNode()}.
     */
    public @Nullable Supplier<SSLContext> jdkClient() {
        return options.nodeToNode() ? () -> jdkPeer().context() : null;
    }

    /**
     * This node's certificate, key and CA as JDK key and trust managers ({@link PeerKeys}), for a TLS stack
     * that takes them rather than a Netty {@link SslContext} (the metadata group's Raft transport): every
     * call on them goes to the files loaded last, so handshakes after a reload present the renewed
     * certificate and check against the renewed CA. {@code null} unless {@link TlsOptions#nodeToNode()}.
     */
    public @Nullable PeerKeys peerKeys() {
        return options.nodeToNode()
                ? new PeerKeys(
                        new ReloadingKeyManager(() -> jdkPeer().keys()),
                        new ReloadingTrustManager(() -> jdkPeer().trust()))
                : null;
    }

    private JdkPeer jdkPeer() {
        return java.util.Objects.requireNonNull(jdkPeer, "set with nodeToNode");
    }

    /** The certificate now presented to new connections (this node's, the first of the chain). */
    public X509Certificate certificate() {
        return certificate;
    }

    /** The provider contexts are built with: {@code OPENSSL} when netty-tcnative is available, else {@code JDK}. */
    public static SslProvider provider() {
        return OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK;
    }

    /** Looks at the files once, as the poller does: for tests that drive the reload themselves. */
    public void pollNow() throws InterruptedException {
        watch.pollNow();
    }

    /** After a change of a file: the new context, or the old one and a WARN line. */
    private void reload() {
        try {
            Loaded loaded = load(options);
            clientContext = loaded.client();
            jdkPeer = loaded.jdkPeer();
            context = loaded.context();
            certificate = loaded.certificate();
            log.info(
                    "reloaded TLS certificate {} (valid until {}) from {}; new connections present it",
                    loaded.certificate().getSubjectX500Principal().getName(),
                    loaded.certificate().getNotAfter().toInstant(),
                    options.certFile());
        } catch (TlsException e) {
            log.warn("{}; keeping the TLS certificate loaded before", e.getMessage());
        } catch (RuntimeException e) { // never let the poller die: it would stop reloading for good
            log.warn("TLS files could not be reloaded ({}); keeping the certificate loaded before", e.toString());
        }
    }

    private record Loaded(
            SslContext context,
            @Nullable SslContext client,
            @Nullable JdkPeer jdkPeer,
            X509Certificate certificate) {}

    /** The JDK side of the node's peer TLS: a client context and the key and trust managers it was made of. */
    private record JdkPeer(SSLContext context, X509ExtendedKeyManager keys, X509ExtendedTrustManager trust) {}

    private static Loaded load(TlsOptions options) throws TlsException {
        String certName = "TLS certificate " + options.certFile();
        X509Certificate[] chain = PemFiles.certificates(PemFiles.read(options.certFile(), certName), certName);
        String keyName = "TLS key " + options.keyFile();
        PrivateKey key = PemFiles.privateKey(PemFiles.read(options.keyFile(), keyName), chain[0], keyName);
        PemFiles.checkPair(key, chain[0], keyName + " and " + certName);
        SslContextBuilder builder = SslContextBuilder.forServer(key, chain).sslProvider(provider());
        Path ca = options.caFile();
        X509Certificate[] trusted = null;
        if (ca != null) {
            String caName = "TLS CA " + ca;
            trusted = PemFiles.certificates(PemFiles.read(ca, caName), caName);
            builder.trustManager(trusted)
                    .clientAuth(options.requiresClientCertificates() ? ClientAuth.REQUIRE : ClientAuth.OPTIONAL);
        }
        try {
            SslContext client = null;
            JdkPeer jdkPeer = null;
            if (options.nodeToNode() && trusted != null) {
                jdkPeer = jdkPeer(key, chain, trusted);
                client = SslContextBuilder.forClient()
                        .sslProvider(provider())
                        .keyManager(key, chain)
                        .trustManager(trusted)
                        .endpointIdentificationAlgorithm("HTTPS") // the peer's URL host, as a browser checks it
                        .build();
            }
            return new Loaded(builder.build(), client, jdkPeer, chain[0]);
        } catch (SSLException | GeneralSecurityException | RuntimeException e) {
            throw new TlsException(certName + " cannot be used: " + e.getMessage(), e);
        }
    }

    /**
     * A JDK client context presenting {@code chain} and trusting {@code trusted}, with the key and trust managers
     * it was made of, from memory only.
     */
    private static JdkPeer jdkPeer(PrivateKey key, X509Certificate[] chain, X509Certificate[] trusted)
            throws GeneralSecurityException {
        try {
            char[] none = new char[0];
            KeyStore keys = KeyStore.getInstance("PKCS12");
            keys.load(null, null);
            keys.setKeyEntry("node", key, none, chain);
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(keys, none);
            TrustManager[] trustManagers = CaTrust.trustManagers(trusted);
            if (!(kmf.getKeyManagers()[0] instanceof X509ExtendedKeyManager keyManager)
                    || !(trustManagers[0] instanceof X509ExtendedTrustManager trustManager)) {
                throw new GeneralSecurityException("the JDK's key or trust manager is not an X509Extended one");
            }
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(new KeyManager[] {keyManager}, new TrustManager[] {trustManager}, null);
            return new JdkPeer(context, keyManager, trustManager);
        } catch (IOException e) { // an in-memory key store does no I/O
            throw new GeneralSecurityException(e);
        }
    }

    /** The files a context is made of: certificate, key and, if set, the CA. */
    private static List<Path> files(TlsOptions options) {
        List<Path> files = new ArrayList<>(3);
        files.add(options.certFile());
        files.add(options.keyFile());
        Path ca = options.caFile();
        if (ca != null) {
            files.add(ca);
        }
        return files;
    }

    /** Stops watching the files; connections keep the context they have. */
    @Override
    public void close() {
        watch.close();
    }

    @Override
    public String toString() {
        return "TLS of " + options.certFile();
    }
}
