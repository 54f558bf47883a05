package io.ringbase.auth;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.jspecify.annotations.Nullable;

/**
 * Signs and checks node-to-node and admin requests with HMAC-SHA256 (RFC 2104) under the shared cluster
 * secret ({@code --cluster-secret-file}), so that only cluster nodes can write versioned entries through
 * the internal API and only operators holding the secret can drive the admin API.
 *
 * <p>The {@link #HEADER} header is {@code <unix ms>.<hex mac>} where the MAC covers
 * {@code method '\n' request-target '\n' unix-ms '\n' body}. A signature older or newer than
 * {@link #MAX_SKEW_MS} is refused, which bounds replay (replaying a versioned write inside the window
 * is harmless: it is idempotent). A node without a secret uses {@link #NONE}, which signs nothing and
 * accepts every request. Thread-safe.
 */
public final class RequestSigner {

    /** The request header that carries the signature: {@code <unix ms>.<hex HMAC-SHA256>}. */
    public static final String HEADER = "x-rb-auth";

    /** The signer of a node without a cluster secret: {@link #signs()} is false, every request is accepted. */
    public static final RequestSigner NONE = new RequestSigner();

    /** Largest accepted difference between the signer's and the checker's clocks (5 minutes). */
    public static final long MAX_SKEW_MS = 5 * 60_000;

    private static final String ALGORITHM = "HmacSHA256";

    private final @Nullable SecretKeySpec key; // null in NONE
    private final @Nullable ThreadLocal<Mac> macs; // null in NONE

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

    private RequestSigner() {
        this.key = null;
        this.macs = null;
    }

    /**
     * The signer for {@code secret}, or {@link #NONE} for a node without one ({@code null}).
     *
     * @throws IllegalArgumentException if the secret is shorter than 16 bytes
     */
    public static RequestSigner of(byte @Nullable [] secret) {
        return secret == null ? NONE : new RequestSigner(secret);
    }

    /** Whether this signer holds a secret: requests are then signed, and unsigned ones refused. */
    public boolean signs() {
        return key != null;
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

    /**
     * The {@link #HEADER} value for a request sent at {@code nowMs} (Unix ms).
     *
     * @throws IllegalStateException on {@link #NONE}, which has no secret to sign with
     */
    public String sign(String method, String uri, byte[] body, long nowMs) {
        if (key == null) {
            throw new IllegalStateException("no cluster secret to sign with");
        }
        return nowMs + "." + HexFormat.of().formatHex(mac(method, uri, nowMs, body));
    }

    /**
     * Whether {@code header} is a valid signature of the request, made within {@link #MAX_SKEW_MS} of
     * {@code nowMs}, or any request at all for {@link #NONE}. Compares in constant time.
     */
    public boolean verify(String method, String uri, byte[] body, @Nullable String header, long nowMs) {
        if (key == null) {
            return true;
        }
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

    /**
     * HMAC-SHA256 of {@code data} with the cluster secret (32 bytes): the proofs of a node-to-node
     * connection's handshake (docs/internal-protocol-v2.md).
     *
     * @throws IllegalStateException on {@link #NONE}, which has no secret
     */
    public byte[] hmac(byte[] data) {
        if (key == null) {
            throw new IllegalStateException("no cluster secret to prove with");
        }
        Mac mac = Objects.requireNonNull(macs, "NONE signs nothing").get();
        return mac.doFinal(data);
    }

    private byte[] mac(String method, String uri, long ts, byte[] body) {
        Mac mac = Objects.requireNonNull(macs, "NONE signs nothing").get(); // callers checked key first
        mac.update((method + "\n" + uri + "\n" + ts + "\n").getBytes(StandardCharsets.UTF_8));
        mac.update(body);
        return mac.doFinal();
    }
}
