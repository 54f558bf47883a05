package io.ringbase.tls;

import io.netty.channel.Channel;
import io.netty.handler.ssl.SslHandler;
import io.ringbase.logging.LogThrottle;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLPeerUnverifiedException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one rule for node-to-node traffic on a TLS port: a connection carries it only if its peer presented,
 * in the TLS handshake, a certificate that chains to {@code --tls-ca} (the handshake has already checked
 * the chain: a certificate that does not chain fails it). The public API on the same port asks for a
 * certificate without requiring one, so a client that authenticates by token connects without; the
 * binary protocol's handshake and every {@code /internal/} request ask {@link #refusal} first. A plain
 * (non-TLS) connection is no concern here: a TLS port refuses plain HTTP before any request, and plain
 * node-to-node traffic on it is refused by the caller. Stateless but for the rate of its WARN line.
 */
public final class PeerCertificates {

    private static final Logger log = LoggerFactory.getLogger(PeerCertificates.class);

    /** The answer given to a connection refused here (one line: an HTTP 403 body, a v2 refusal reason). */
    public static final String REFUSAL =
            "node-to-node traffic needs a TLS client certificate signed by this node's --tls-ca";

    /** At most one WARN line per this interval, s: a misconfigured peer retries often. */
    static final long WARN_INTERVAL_S = 10;

    private static final LogThrottle warnings = new LogThrottle(WARN_INTERVAL_S, TimeUnit.SECONDS);

    private PeerCertificates() {}

    /**
     * Why node-to-node traffic on {@code channel} must be refused, or {@code null} if it may go on: the
     * connection is not TLS (a plain port), or its peer presented a certificate the handshake accepted.
     * A refusal logs one WARN line naming the remote address, at most one per {@value #WARN_INTERVAL_S} s
     * (with the number held back).
     *
     * @param what the traffic refused, for the log line ("an /internal/ request", "a v2 connection")
     */
    public static @Nullable String refusal(Channel channel, String what) {
        SslHandler ssl = channel.pipeline().get(SslHandler.class);
        if (ssl == null || presented(ssl)) {
            return null;
        }
        warn(channel, what);
        return REFUSAL;
    }

    /**
     * As {@link #refusal(Channel, String)} for node-to-node traffic that arrived without TLS on a port that
     * speaks TLS: always refused.
     */
    public static String plainRefusal(Channel channel, String what) {
        warn(channel, what + " without TLS");
        return "this port speaks TLS: " + REFUSAL;
    }

    private static boolean presented(SslHandler ssl) {
        try {
            return ssl.engine().getSession().getPeerCertificates().length > 0;
        } catch (SSLPeerUnverifiedException e) {
            return false; // none presented (the handshake refuses one that does not chain to the CA)
        }
    }

    private static void warn(Channel channel, String what) {
        long more = warnings.tryLog();
        if (more < 0) {
            return;
        }
        log.warn(
                "refused {} from {}: no TLS client certificate signed by --tls-ca{}",
                what,
                channel.remoteAddress(),
                more > 0 ? " (" + more + " more refusals since the last such line)" : "");
    }
}
