package io.ringbase.tls;

import io.ringbase.logging.LogThrottle;
import java.net.Socket;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;

/**
 * A trust manager that says which certificates it refuses: it asks {@code delegate}, and when that refuses a
 * peer's certificate it logs one WARN line (the peer's address, the certificate's subject and the reason) before
 * the refusal goes on. A TLS stack that refuses a handshake says so to the peer only: gRPC, under Ratis's
 * metadata group, logs it at a level below INFO, so a node given the wrong CA would fail to reach its group
 * with no line of its own saying why. At most one line per 10 s for each direction (a peer refused keeps
 * retrying), with the number held back since the previous one. Thread-safe.
 */
public final class LoggingTrustManager extends X509ExtendedTrustManager {

    /** The least time between two lines of one direction, s. */
    static final long LOG_INTERVAL_S = 10;

    private final X509ExtendedTrustManager delegate;
    private final String what;
    private final Logger log;
    private final LogThrottle clients = new LogThrottle(LOG_INTERVAL_S, TimeUnit.SECONDS);
    private final LogThrottle servers = new LogThrottle(LOG_INTERVAL_S, TimeUnit.SECONDS);

    /** Whose certificate a check of each direction is about, as the log line names it. */
    private static final String CONNECTING = "a connecting peer";

    private static final String DIALLED = "the peer dialled";

    /**
     * @param delegate the trust manager that decides
     * @param what     what the connections are for, the start of each line (e.g. {@code "metadata group"})
     * @param log      where the lines go
     */
    public LoggingTrustManager(X509ExtendedTrustManager delegate, String what, Logger log) {
        this.delegate = delegate;
        this.what = what;
        this.log = log;
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        check(clients, CONNECTING, null, chain, () -> delegate.checkClientTrusted(chain, authType));
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        check(servers, DIALLED, null, chain, () -> delegate.checkServerTrusted(chain, authType));
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        check(clients, CONNECTING, address(socket), chain, () -> delegate.checkClientTrusted(chain, authType, socket));
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        check(servers, DIALLED, address(socket), chain, () -> delegate.checkServerTrusted(chain, authType, socket));
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        check(clients, CONNECTING, address(engine), chain, () -> delegate.checkClientTrusted(chain, authType, engine));
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        check(servers, DIALLED, address(engine), chain, () -> delegate.checkServerTrusted(chain, authType, engine));
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
        return delegate.getAcceptedIssuers();
    }

    /** One of the delegate's checks. */
    @FunctionalInterface
    private interface Check {
        void run() throws CertificateException;
    }

    /** Runs {@code check}; a refusal is logged ({@link #refused}) and goes on. */
    private void check(LogThrottle throttle, String who, @Nullable String address, X509Certificate[] chain, Check check)
            throws CertificateException {
        try {
            check.run();
        } catch (CertificateException e) {
            throw refused(throttle, who, address, chain, e);
        }
    }

    private static String address(Socket socket) {
        return String.valueOf(socket.getRemoteSocketAddress());
    }

    private static @Nullable String address(SSLEngine engine) {
        return engine.getPeerHost() == null ? null : engine.getPeerHost() + ":" + engine.getPeerPort();
    }

    /** Logs the refusal if {@code throttle} lets it, and returns {@code e} to be thrown on. */
    private CertificateException refused(
            LogThrottle throttle,
            String who,
            @Nullable String address,
            X509Certificate[] chain,
            CertificateException e) {
        long heldBack = throttle.tryLog();
        if (heldBack >= 0) {
            log.warn(
                    "{}: refused the TLS certificate of {}{} (subject '{}'): {}; every node's --tls-cert must be"
                            + " issued by the CA of the others' --tls-ca and name the host it is reached at{}",
                    what,
                    who,
                    address == null ? "" : " at " + address,
                    chain.length == 0
                            ? "none"
                            : chain[0].getSubjectX500Principal().getName(),
                    e.getMessage(),
                    heldBack == 0 ? "" : " (" + heldBack + " more refusals since the last line)");
        }
        return e;
    }
}
