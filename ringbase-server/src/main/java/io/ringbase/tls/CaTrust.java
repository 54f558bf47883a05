package io.ringbase.tls;

import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;

/**
 * Trust in a given set of CA certificates, for the JDK's TLS: the client context of a tool that talks to
 * nodes whose certificates a private CA signed ({@code ringbase admin --tls-ca}), and the trust managers of
 * the node's own JDK contexts. Stateless.
 */
public final class CaTrust {

    private CaTrust() {}

    /**
     * A JDK client context that trusts the CA certificates of the PEM file {@code caFile} and no other, and
     * presents no certificate of its own. Host names are checked by the client that uses it (the JDK's
     * {@code HttpClient} does).
     *
     * @param what how to name the file in messages, e.g. {@code --tls-ca /etc/ringbase/ca.pem}
     * @throws TlsException if the file cannot be read or holds no PEM certificate; the message names
     *         {@code what}
     */
    public static SSLContext clientContext(Path caFile, String what) throws TlsException {
        X509Certificate[] trusted = PemFiles.certificates(PemFiles.read(caFile, what), what);
        try {
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trustManagers(trusted), null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new TlsException(what + " cannot be used: " + e.getMessage(), e);
        }
    }

    /** Trust managers that trust exactly {@code trusted}, from an in-memory key store. */
    static TrustManager[] trustManagers(X509Certificate[] trusted) throws GeneralSecurityException {
        try {
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            for (int i = 0; i < trusted.length; i++) {
                trust.setCertificateEntry("ca-" + i, trusted[i]);
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            return tmf.getTrustManagers();
        } catch (IOException e) { // an in-memory key store does no I/O
            throw new GeneralSecurityException(e);
        }
    }
}
