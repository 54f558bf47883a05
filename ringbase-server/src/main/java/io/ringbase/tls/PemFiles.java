package io.ringbase.tls;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.List;

/**
 * Reads PEM files and the text of their certificates and private keys (RFC 7468), and checks that a key belongs to its
 * certificate. Stateless.
 */
final class PemFiles {

    private static final String KEY_BEGIN = "-----BEGIN PRIVATE KEY-----";
    private static final String KEY_END = "-----END PRIVATE KEY-----";

    private PemFiles() {}

    /**
     * The bytes of the PEM file {@code file}.
     *
     * @throws TlsException if it cannot be read; the message names {@code what}
     */
    static byte[] read(Path file, String what) throws TlsException {
        try {
            return Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new TlsException(what + " cannot be read: no such file", e);
        } catch (IOException e) {
            throw new TlsException(what + " cannot be read: " + e, e);
        }
    }

    /**
     * The X.509 certificates of {@code pem}, in file order.
     *
     * @throws TlsException if it holds none or one cannot be parsed; the message names {@code what}
     */
    static X509Certificate[] certificates(byte[] pem, String what) throws TlsException {
        try {
            List<X509Certificate> certs =
                    CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(pem)).stream()
                            .map(X509Certificate.class::cast)
                            .toList();
            if (certs.isEmpty()) {
                throw new TlsException(what + " holds no PEM certificate (-----BEGIN CERTIFICATE-----)");
            }
            return certs.toArray(X509Certificate[]::new);
        } catch (CertificateException e) {
            throw new TlsException(what + " is not a PEM certificate: " + e.getMessage(), e);
        }
    }

    /**
     * The unencrypted PKCS#8 private key of {@code pem}, of the algorithm of {@code cert}'s public key.
     *
     * @throws TlsException if there is no {@value #KEY_BEGIN} block (an encrypted or PKCS#1 key says how to
     *         convert it) or it cannot be decoded
     */
    static PrivateKey privateKey(byte[] pem, X509Certificate cert, String what) throws TlsException {
        String text = new String(pem, StandardCharsets.US_ASCII);
        int begin = text.indexOf(KEY_BEGIN);
        int end = text.indexOf(KEY_END);
        if (begin < 0 || end < begin) {
            throw new TlsException(what + " holds no unencrypted PKCS#8 key (" + KEY_BEGIN
                    + "); convert one with: openssl pkcs8 -topk8 -nocrypt -in KEY -out KEY.pk8");
        }
        try {
            byte[] der = Base64.getMimeDecoder().decode(text.substring(begin + KEY_BEGIN.length(), end));
            String algorithm = cert.getPublicKey().getAlgorithm();
            return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
        } catch (IllegalArgumentException | GeneralSecurityException e) {
            throw new TlsException(what + " cannot be decoded as a key for its certificate: " + e.getMessage(), e);
        }
    }

    /**
     * Checks that {@code key} is the private half of {@code cert}'s public key, by signing random bytes and
     * verifying the signature; keys of an algorithm this does not know (e.g. RSASSA-PSS) are not checked.
     *
     * @throws TlsException if they do not match (as when a poll sees a renewed certificate before its key)
     */
    static void checkPair(PrivateKey key, X509Certificate cert, String what) throws TlsException {
        PublicKey pub = cert.getPublicKey();
        String algorithm = switch (pub.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            case "EdDSA", "Ed25519", "Ed448" -> "EdDSA";
            default -> "";
        };
        if (algorithm.isEmpty()) {
            return;
        }
        try {
            byte[] probe = new byte[32];
            new SecureRandom().nextBytes(probe);
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(probe);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(pub);
            verifier.update(probe);
            if (!verifier.verify(signature)) {
                throw new TlsException(what + ": the key does not belong to the certificate");
            }
        } catch (GeneralSecurityException e) {
            throw new TlsException(what + ": the key does not belong to the certificate (" + e.getMessage() + ")", e);
        }
    }
}
