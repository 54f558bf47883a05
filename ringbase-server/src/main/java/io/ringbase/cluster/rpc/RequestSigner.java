package io.ringbase.cluster.rpc;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Signs and checks internal requests with HMAC-SHA256 (RFC 2104) under the shared cluster secret, so
 * that only cluster nodes can write versioned entries through the internal API.
 *
 * <p>The {@link InternalProtocol#AUTH} header is {@code <unix ms>.<hex mac>} where the MAC covers
 * {@code method '\n' request-target '\n' unix-ms '\n' body}. A signature older or newer than
 * {@link #MAX_SKEW_MS} is refused, which bounds replay (replaying a versioned write inside the window
 * is harmless: it is idempotent). Thread-safe.
 */
public final class RequestSigner {

    /** Largest accepted difference between the signer's and the checker's clocks (5 minutes). */
    public static final long MAX_SKEW_MS = 5 * 60_000;
    private static final String ALGORITHM = "HmacSHA256";

    private final SecretKeySpec key;
    private final ThreadLocal<Mac> macs;

    /**
     * @param secret the shared secret, at least 16 bytes
     * @throws IllegalArgumentException if the secret is shorter
     */
    public RequestSigner(byte[] secret) {
        if (secret.length < 16) {
            throw new IllegalArgumentException("the cluster secret must be at least 16 bytes, got " + secret.length);
        }
        this.key = new SecretKeySpec(secret.clone(), ALGORITHM);
        this.macs = ThreadLocal.withInitial(this::newMac);
    }

    private Mac newMac() {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }

    /** The {@link InternalProtocol#AUTH} header value for a request sent at {@code nowMs}. */
    public String sign(String method, String uri, byte[] body, long nowMs) {
        return nowMs + "." + HexFormat.of().formatHex(mac(method, uri, nowMs, body));
    }

    /**
     * Whether {@code header} is a valid signature of the request, made within {@link #MAX_SKEW_MS} of
     * {@code nowMs}. Compares in constant time.
     */
    public boolean verify(String method, String uri, byte[] body, String header, long nowMs) {
        if (header == null) {
            return false;
        }
        int dot = header.indexOf('.');
        if (dot <= 0) {
            return false;
        }
        long ts;
        byte[] given;
        try {
            ts = Long.parseLong(header, 0, dot, 10);
            given = HexFormat.of().parseHex(header, dot + 1, header.length());
        } catch (IllegalArgumentException e) {
            return false;
        }
        if (Math.abs(nowMs - ts) > MAX_SKEW_MS) {
            return false;
        }
        return MessageDigest.isEqual(given, mac(method, uri, ts, body));
    }

    private byte[] mac(String method, String uri, long ts, byte[] body) {
        Mac mac = macs.get();
        mac.update((method + "\n" + uri + "\n" + ts + "\n").getBytes(StandardCharsets.UTF_8));
        mac.update(body);
        return mac.doFinal();
    }
}
