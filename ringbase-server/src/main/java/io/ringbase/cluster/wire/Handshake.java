package io.ringbase.cluster.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.ringbase.auth.RequestSigner;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import org.jspecify.annotations.Nullable;

/**
 * The handshake messages of a v2 connection and their checks (docs/internal-protocol-v2.md,
 * "Handshake"): version negotiation, cluster name, membership digest, epoch, and the mutual
 * challenge-response over the cluster secret, {@code HMAC-SHA256(K, label | clientNonce | serverNonce |
 * version)}. Encoders return sealed frames; decoders throw {@link IllegalArgumentException} on a body
 * that does not parse. Stateless.
 */
final class Handshake {

    private static final byte[] SERVER_LABEL = "rb-wire-server".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CLIENT_LABEL = "rb-wire-client".getBytes(StandardCharsets.US_ASCII);
    private static final SecureRandom RANDOM = new SecureRandom();

    private Handshake() {}

    /** What a client says first. */
    record ClientHello(
            int minVersion,
            int maxVersion,
            String cluster,
            String sender,
            String membership,
            long epoch,
            byte[] nonce) {}

    /** The server's answer to a {@link ClientHello} it accepts. */
    record ServerHello(int version, String cluster, byte[] nonce, byte[] proof) {}

    /** A fresh nonce of {@link WireFormat#NONCE_BYTES}. */
    static byte[] nonce() {
        byte[] n = new byte[WireFormat.NONCE_BYTES];
        RANDOM.nextBytes(n);
        return n;
    }

    static ByteBuf encode(ByteBufAllocator alloc, ClientHello h) {
        ByteBuf out = WireFormat.frame(
                alloc,
                0,
                WireFormat.OP_CLIENT_HELLO,
                2
                        + WireFormat.stringSize(h.cluster())
                        + WireFormat.stringSize(h.sender())
                        + WireFormat.stringSize(h.membership())
                        + 8
                        + WireFormat.NONCE_BYTES);
        out.writeByte(h.minVersion()).writeByte(h.maxVersion());
        WireFormat.writeString(out, h.cluster());
        WireFormat.writeString(out, h.sender());
        WireFormat.writeString(out, h.membership());
        out.writeLongLE(h.epoch());
        out.writeBytes(h.nonce());
        return WireFormat.seal(out);
    }

    static ClientHello clientHello(ByteBuf in) {
        if (in.readableBytes() < 2) {
            throw new IllegalArgumentException("client hello too short");
        }
        int min = in.readUnsignedByte();
        int max = in.readUnsignedByte();
        String cluster = WireFormat.readString(in);
        String sender = WireFormat.readString(in);
        String membership = WireFormat.readString(in);
        if (in.readableBytes() != 8 + WireFormat.NONCE_BYTES) {
            throw new IllegalArgumentException("client hello has " + in.readableBytes()
                    + " bytes after its strings, not " + (8 + WireFormat.NONCE_BYTES));
        }
        long epoch = in.readLongLE();
        byte[] nonce = new byte[WireFormat.NONCE_BYTES];
        in.readBytes(nonce);
        return new ClientHello(min, max, cluster, sender, membership, epoch, nonce);
    }

    static ByteBuf encode(ByteBufAllocator alloc, ServerHello h) {
        ByteBuf out = WireFormat.frame(
                alloc,
                0,
                WireFormat.OP_SERVER_HELLO,
                1 + WireFormat.stringSize(h.cluster()) + WireFormat.NONCE_BYTES + 1 + h.proof().length);
        out.writeByte(h.version());
        WireFormat.writeString(out, h.cluster());
        out.writeBytes(h.nonce());
        out.writeByte(h.proof().length);
        out.writeBytes(h.proof());
        return WireFormat.seal(out);
    }

    static ServerHello serverHello(ByteBuf in) {
        if (in.readableBytes() < 1) {
            throw new IllegalArgumentException("server hello too short");
        }
        int version = in.readUnsignedByte();
        String cluster = WireFormat.readString(in);
        if (in.readableBytes() < WireFormat.NONCE_BYTES + 1) {
            throw new IllegalArgumentException("server hello too short for its nonce");
        }
        byte[] nonce = new byte[WireFormat.NONCE_BYTES];
        in.readBytes(nonce);
        return new ServerHello(version, cluster, nonce, proofOf(in));
    }

    static ByteBuf auth(ByteBufAllocator alloc, byte[] proof) {
        ByteBuf out = WireFormat.frame(alloc, 0, WireFormat.OP_CLIENT_AUTH, 1 + proof.length);
        out.writeByte(proof.length).writeBytes(proof);
        return WireFormat.seal(out);
    }

    /** The proof in a CLIENT_AUTH body (or the tail of a SERVER_HELLO): {@code u8 length, bytes}. */
    static byte[] proofOf(ByteBuf in) {
        if (in.readableBytes() < 1) {
            throw new IllegalArgumentException("missing proof length");
        }
        int n = in.readUnsignedByte();
        if (n != in.readableBytes()) {
            throw new IllegalArgumentException(
                    "proof of " + n + " bytes does not fill the " + in.readableBytes() + " left");
        }
        byte[] proof = new byte[n];
        in.readBytes(proof);
        return proof;
    }

    static ByteBuf ready(ByteBufAllocator alloc) {
        return WireFormat.seal(WireFormat.frame(alloc, 0, WireFormat.OP_READY, 0));
    }

    static ByteBuf refused(ByteBufAllocator alloc, String reason) {
        ByteBuf out = WireFormat.frame(alloc, 0, WireFormat.OP_REFUSED, WireFormat.stringSize(reason));
        WireFormat.writeString(out, reason);
        return WireFormat.seal(out);
    }

    /**
     * The version both speak: the highest this node speaks within the client's range, or -1 if none.
     */
    static int negotiate(int clientMin, int clientMax) {
        int v = Math.min(clientMax, WireFormat.MAX_VERSION);
        return v >= clientMin && v >= WireFormat.MIN_VERSION ? v : -1;
    }

    /** The server's proof; empty without a secret. */
    static byte[] serverProof(RequestSigner signer, byte[] clientNonce, byte[] serverNonce, int version) {
        return proof(signer, SERVER_LABEL, clientNonce, serverNonce, version);
    }

    /** The client's proof; empty without a secret. */
    static byte[] clientProof(RequestSigner signer, byte[] clientNonce, byte[] serverNonce, int version) {
        return proof(signer, CLIENT_LABEL, clientNonce, serverNonce, version);
    }

    /**
     * Why {@code given} does not prove the secret, or {@code null} if it does (or this node has no
     * secret: it accepts any peer, as the HTTP path accepts unsigned requests). Constant time.
     */
    static @Nullable String proofRefusal(RequestSigner signer, byte[] given, byte[] expected) {
        if (!signer.signs()) {
            return null;
        }
        if (given.length == 0) {
            return "the peer proved no cluster secret (it has none configured)";
        }
        return MessageDigest.isEqual(given, expected)
                ? null
                : "the peer's proof does not match this node's cluster secret";
    }

    private static byte[] proof(RequestSigner signer, byte[] label, byte[] c, byte[] s, int version) {
        if (!signer.signs()) {
            return new byte[0];
        }
        byte[] data = new byte[label.length + c.length + s.length + 1];
        System.arraycopy(label, 0, data, 0, label.length);
        System.arraycopy(c, 0, data, label.length, c.length);
        System.arraycopy(s, 0, data, label.length + c.length, s.length);
        data[data.length - 1] = (byte) version;
        return signer.hmac(data);
    }
}
