package io.ringbase.testing;

import java.io.IOException;
import java.io.StringWriter;
import java.math.BigInteger;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509KeyManager;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A throwaway certificate authority for TLS tests, made with Bouncy Castle: EC P-256 keys, certificates
 * valid from a day ago for a week (wall time is read only for those bounds), written as the PEM files
 * {@code serve --tls-cert/--tls-key/--tls-ca} take (keys as unencrypted PKCS#8).
 */
public final class TestCertificates {

    private static final AtomicLong SERIAL = new AtomicLong(1);
    private static final long DAY_MS = 86_400_000L;

    private final KeyPair caKeys;
    private final X509Certificate ca;
    private final X500Name caName;

    /** A certificate and its key. */
    public record Issued(X509Certificate certificate, KeyPair keys) {}

    /** A new CA named {@code CN=<name>}. */
    public TestCertificates(String name) {
        try {
            caKeys = newKeys();
            caName = new X500Name("CN=" + name);
            X509v3CertificateBuilder b = builder(caName, caName, caKeys);
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
            ca = sign(b, caKeys);
        } catch (IOException | GeneralSecurityException | OperatorCreationException e) {
            throw new IllegalStateException("cannot make a test CA", e);
        }
    }

    /** The CA's certificate. */
    public X509Certificate ca() {
        return ca;
    }

    /** A certificate signed by this CA for {@code CN=<commonName>}, for 127.0.0.1 and localhost. */
    public Issued issue(String commonName) {
        return issue(
                commonName,
                new GeneralName(GeneralName.dNSName, "localhost"),
                new GeneralName(GeneralName.iPAddress, "127.0.0.1"));
    }

    /**
     * A certificate signed by this CA for {@code CN=<commonName>} whose only subjectAltName is the host
     * {@code dnsName}: a certificate that does not name the loopback address its node is dialled at.
     */
    public Issued issueFor(String commonName, String dnsName) {
        return issue(commonName, new GeneralName(GeneralName.dNSName, dnsName));
    }

    private Issued issue(String commonName, GeneralName... names) {
        try {
            KeyPair keys = newKeys();
            X509v3CertificateBuilder b = builder(caName, new X500Name("CN=" + commonName), keys);
            b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(names));
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
            return new Issued(sign(b, caKeys), keys);
        } catch (IOException | GeneralSecurityException | OperatorCreationException e) {
            throw new IllegalStateException("cannot issue a test certificate", e);
        }
    }

    /** Writes the CA's certificate to {@code file} as PEM. */
    public Path writeCa(Path file) throws IOException {
        return writeAtomically(file, pem(ca));
    }

    /**
     * Writes {@code issued}'s certificate and key to {@code cert} and {@code key} as PEM, each through a
     * temporary file renamed over the old (as an operator replaces them).
     */
    public static void write(Issued issued, Path cert, Path key) throws IOException {
        writeAtomically(cert, pem(issued.certificate()));
        writeAtomically(key, pem(issued.keys().getPrivate()));
    }

    /** An SSLContext that trusts this CA and, if {@code client} is not null, presents that certificate. */
    public SSLContext clientContext(Issued client) {
        return clientContext(ca, client);
    }

    /**
     * An SSLContext that trusts {@code trusted} and, if {@code client} is not null, presents that certificate
     * (which may be another CA's: a peer the server must refuse).
     */
    public static SSLContext clientContext(X509Certificate trusted, Issued client) {
        try {
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            trust.setCertificateEntry("ca", trusted);
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            KeyManagerFactory kmf = null;
            if (client != null) {
                KeyStore keys = KeyStore.getInstance("PKCS12");
                keys.load(null, null);
                keys.setKeyEntry(
                        "client", client.keys().getPrivate(), new char[0], new X509Certificate[] {client.certificate()
                        });
                kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                kmf.init(keys, new char[0]);
            }
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(
                    kmf == null ? null : new KeyManager[] {new Presenting((X509KeyManager) kmf.getKeyManagers()[0])},
                    tmf.getTrustManagers(),
                    null);
            return context;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot make a client SSLContext", e);
        }
    }

    /** As {@link #clientContext(Issued)}, presenting no certificate. */
    public SSLContext clientContext() {
        return clientContext(null);
    }

    /**
     * Presents the one client certificate whatever CAs the server names in its request: the JDK's own key
     * manager would send none when they do not match, hiding a certificate of another CA from the server.
     */
    private static final class Presenting extends X509ExtendedKeyManager {
        private final X509KeyManager keys;

        Presenting(X509KeyManager keys) {
            this.keys = keys;
        }

        @Override
        public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
            return "client";
        }

        @Override
        public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
            return "client";
        }

        @Override
        public String[] getClientAliases(String keyType, Principal[] issuers) {
            return new String[] {"client"};
        }

        @Override
        public String[] getServerAliases(String keyType, Principal[] issuers) {
            return new String[0];
        }

        @Override
        public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
            return null;
        }

        @Override
        public X509Certificate[] getCertificateChain(String alias) {
            return keys.getCertificateChain(alias);
        }

        @Override
        public PrivateKey getPrivateKey(String alias) {
            return keys.getPrivateKey(alias);
        }
    }

    private static KeyPair newKeys() throws GeneralSecurityException {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"), new SecureRandom());
        return g.generateKeyPair();
    }

    @SuppressWarnings("JavaUtilDate") // the certificate API takes Dates
    private static X509v3CertificateBuilder builder(X500Name issuer, X500Name subject, KeyPair keys) {
        long now = System.currentTimeMillis();
        return new JcaX509v3CertificateBuilder(
                issuer,
                BigInteger.valueOf(SERIAL.getAndIncrement()),
                new Date(now - DAY_MS),
                new Date(now + 7 * DAY_MS),
                subject,
                keys.getPublic());
    }

    private static X509Certificate sign(X509v3CertificateBuilder b, KeyPair signer)
            throws OperatorCreationException, GeneralSecurityException {
        return new JcaX509CertificateConverter()
                .getCertificate(b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(signer.getPrivate())));
    }

    private static String pem(Object o) throws IOException {
        StringWriter out = new StringWriter();
        try (JcaPEMWriter w = new JcaPEMWriter(out)) {
            w.writeObject(
                    o instanceof java.security.PrivateKey k
                            ? new org.bouncycastle.openssl.jcajce.JcaPKCS8Generator(k, null)
                            : o);
        }
        return out.toString();
    }

    private static Path writeAtomically(Path file, String text) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(tmp, text, StandardCharsets.US_ASCII);
        return Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
