package io.ringbase.tls;

import java.net.Socket;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.function.Supplier;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * A trust manager that asks, at every call, the one {@link ServerTls} loaded last (the CA file of
 * {@code --tls-ca}): see {@link ReloadingKeyManager}. The engine and socket forms are passed on as they
 * are, so the host name check that a client's engine asks for ({@code HTTPS} endpoint identification) is
 * made by the JDK's trust manager behind it. Thread-safe.
 */
final class ReloadingTrustManager extends X509ExtendedTrustManager {

    private final Supplier<X509ExtendedTrustManager> current;

    ReloadingTrustManager(Supplier<X509ExtendedTrustManager> current) {
        this.current = current;
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        current.get().checkClientTrusted(chain, authType);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        current.get().checkServerTrusted(chain, authType);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        current.get().checkClientTrusted(chain, authType, socket);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        current.get().checkServerTrusted(chain, authType, socket);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        current.get().checkClientTrusted(chain, authType, engine);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        current.get().checkServerTrusted(chain, authType, engine);
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
        return current.get().getAcceptedIssuers();
    }
}
