package io.ringbase.cluster.rpc;

import io.ringbase.auth.RequestSigner;
import io.ringbase.clock.TimeSource;
import io.ringbase.cluster.Topology;
import io.ringbase.cluster.membership.HelloSender;
import io.ringbase.cluster.membership.NodeIdentity;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;
import org.jspecify.annotations.Nullable;

/**
 * Asks a node for its cluster metadata, or to submit a change to the metadata log
 * ({@link InternalProtocol#METADATA}): what a joining node does before it has a replica client, and what a
 * node outside the metadata group does to follow the log; and says hello before a founding node starts
 * ({@link #hello}). Requests are signed and carry the membership
 * digest as every internal request does. With TLS between nodes ({@code https://} cluster URLs) it calls
 * {@code https://} (the metadata records a node's URL as its identity, {@code http://host:port}) and presents
 * the node's certificate. Blocking; thread-safe.
 */
public final class MetadataClient implements AutoCloseable {

    /**
     * A node's answer other than 200: {@link #status()} 409 for a rejected change (or another membership),
     * 503 for no metadata or no quorum.
     */
    public static final class Refused extends IOException {
        private final int status;

        Refused(String url, int status, String body) {
            super(url + " answered " + status + ": " + body.strip());
            this.status = status;
        }

        public int status() {
            return status;
        }
    }

    private final @Nullable Supplier<SSLContext> tls;
    private final Object clientLock = new Object();
    private HttpClient http; // guarded by clientLock: rebuilt when the TLS context changes (a reload)
    private @Nullable SSLContext httpTls; // guarded by clientLock: the context http was built with
    private final RequestSigner signer;
    private final String membershipDigest;
    private final TimeSource time;
    private final long timeoutMs;

    /**
     * @param membershipDigest the {@link InternalProtocol#MEMBERSHIP} header value
     * @param timeoutMs        how long one call waits for its answer, ms
     */
    public MetadataClient(RequestSigner signer, String membershipDigest, TimeSource time, long timeoutMs) {
        this(signer, membershipDigest, time, timeoutMs, null);
    }

    /**
     * As {@link #MetadataClient(RequestSigner, String, TimeSource, long)}, over TLS when {@code tls} is given.
     *
     * @param tls the client side of the node's TLS with its peers (the node's certificate and CA; a new context
     *            after each reload, which the next call uses), or {@code null} for plain HTTP
     */
    public MetadataClient(
            RequestSigner signer,
            String membershipDigest,
            TimeSource time,
            long timeoutMs,
            @Nullable Supplier<SSLContext> tls) {
        this.tls = tls;
        this.httpTls = tls == null ? null : tls.get();
        this.http = newHttp(httpTls, timeoutMs);
        this.signer = signer;
        this.membershipDigest = membershipDigest;
        this.time = time;
        this.timeoutMs = timeoutMs;
    }

    /**
     * The metadata record the node at {@code url} holds.
     *
     * @throws Refused      if it answered other than 200
     * @throws IOException  if it could not be reached in time
     */
    public byte[] fetch(String url) throws IOException, InterruptedException {
        return call(url, "GET", new byte[0]);
    }

    /**
     * Submits a transformation record through the node at {@code url}: the metadata right after it.
     *
     * @throws Refused     409 with the reason if the log rejected it; 503 if that node cannot submit
     * @throws IOException if it could not be reached in time
     */
    public byte[] submit(String url, byte[] transformation) throws IOException, InterruptedException {
        return call(url, "POST", transformation);
    }

    /**
     * Says hello to the node at {@code url} as {@code me} ({@link InternalProtocol#HELLO}) and returns what it
     * remembers of {@code selfUrl}: what a founding node that finds no metadata log of its own asks its peers
     * before it starts a metadata server. A hello in a state other than NORMAL changes nothing on the peer.
     *
     * @throws Refused     if it answered other than 200
     * @throws IOException if it could not be reached in time, or answered something that is no hello answer
     */
    public HelloSender.Answer hello(String url, String selfUrl, NodeIdentity me)
            throws IOException, InterruptedException {
        byte[] answer = call(url, InternalProtocol.HELLO, "POST", InternalProtocol.helloBody(selfUrl, me));
        try {
            return InternalProtocol.parseHelloAnswer(answer);
        } catch (IllegalArgumentException e) {
            throw new IOException(url + " answered the hello with " + e.getMessage(), e);
        }
    }

    private byte[] call(String url, String method, byte[] body) throws IOException, InterruptedException {
        return call(url, InternalProtocol.METADATA, method, body);
    }

    private static HttpClient newHttp(@Nullable SSLContext tls, long timeoutMs) {
        HttpClient.Builder b = HttpClient.newBuilder()
                .connectTimeout(Duration.ofMillis(timeoutMs))
                .version(HttpClient.Version.HTTP_1_1);
        if (tls != null) {
            b.sslContext(tls);
        }
        return b.build();
    }

    /** The client for the next call: built again, once, after the node's TLS files were reloaded. */
    private HttpClient http() {
        synchronized (clientLock) {
            SSLContext now = tls == null ? null : tls.get();
            if (now != httpTls) {
                http.shutdown(); // calls under way finish on it
                http = newHttp(now, timeoutMs);
                httpTls = now;
            }
            return http;
        }
    }

    private byte[] call(String url, String uri, String method, byte[] body) throws IOException, InterruptedException {
        String target = tls != null ? Topology.overTls(url) : url;
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(target + uri))
                .timeout(Duration.ofMillis(method.equals("POST") ? 2 * timeoutMs : timeoutMs))
                .header(InternalProtocol.MEMBERSHIP, membershipDigest)
                .method(method, HttpRequest.BodyPublishers.ofByteArray(body));
        if (signer.signs()) {
            request.header(RequestSigner.HEADER, signer.sign(method, uri, body, time.currentTimeMillis()));
        }
        HttpResponse<byte[]> response = http().send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
        if (response.statusCode() != 200) {
            throw new Refused(url, response.statusCode(), new String(response.body(), StandardCharsets.UTF_8));
        }
        return response.body();
    }

    @Override
    public void close() {
        synchronized (clientLock) {
            http.close();
        }
    }
}
