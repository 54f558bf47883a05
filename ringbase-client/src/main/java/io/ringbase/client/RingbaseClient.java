package io.ringbase.client;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A client of a Ringbase cluster (or node): point reads and writes, deletes and range scans over the HTTP
 * API ({@code docs/http-api.md}), each synchronous or asynchronous. Thread-safe; make one per application
 * and {@link #close()} it at the end.
 *
 * <p><b>Nodes.</b> Any node coordinates any request, but one that holds a replica of the key serves that
 * replica from its own engine instead of over the network. So by default ({@link Routing#REPLICA}) the
 * client fetches the cluster's placement ({@code GET /v0/ring}) when built, every
 * {@link Builder#ringRefresh(Duration)} after, and soon after a node fails to answer, and sends each get, put
 * and delete to a replica of its key: the first one not marked down, a retry to the next, and to the given
 * nodes in turn when none is up or no placement is known yet. Scans and status calls go to the given nodes
 * in turn, as every request does with {@link Routing#RANDOM}. A node that refuses connections is skipped for
 * {@link Builder#downFor(Duration)} and the request goes to another. Connections are pooled and kept alive
 * by the JDK's {@link HttpClient}.
 *
 * <p><b>Retries.</b> A request that never reached a node (connection refused) is sent to the next node,
 * whatever it is. One answered 503 (overloaded: nothing was done) is retried after a backoff. Other
 * failures are retried only for idempotent calls (reads, scans, status): a PUT or DELETE that timed out or
 * was answered 504 may have been applied, and sending it again could overwrite a newer write of another
 * client, so it fails with a {@link RingbaseException}. Backoff: {@link Builder#backoff(Duration)} doubled
 * at each attempt, with full jitter, up to {@link Builder#maxAttempts(int)} attempts.
 *
 * <p>Keys are strings, sent as their UTF-8 bytes (form-encoded in the query, as the API wants); values are
 * bytes.
 */
public final class RingbaseClient implements AutoCloseable {

    private static final String NDJSON = "application/x-ndjson";

    private final List<URI> nodes;
    private final Router router;
    private final HttpClient http;
    private final Duration requestTimeout;
    private final int maxAttempts;
    private final long backoffNanos;
    private final String authorization;
    private final String quorum; // "&ack=A&from=F" on point requests, or ""
    private final int from; // of point requests, 0 for the cluster's replication factor
    private final PlacementFetcher placement; // null with Routing.RANDOM

    private RingbaseClient(Builder b) {
        this.nodes = List.copyOf(b.nodes);
        this.requestTimeout = b.requestTimeout;
        this.maxAttempts = b.maxAttempts;
        this.backoffNanos = b.backoff.toNanos();
        this.authorization = b.token == null ? null : "Bearer " + b.token;
        this.quorum = b.ack == 0 ? "" : "&ack=" + b.ack + "&from=" + b.from;
        this.from = b.from;
        this.router = new Router(nodes, b.routing, b.from, b.downFor.toNanos());
        HttpClient.Builder http =
                HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(b.connectTimeout);
        if (b.ssl != null) {
            http.sslContext(b.ssl);
        }
        this.http = http.build();
        this.placement = b.routing == Routing.REPLICA
                ? PlacementFetcher.start(this.http, nodes, router, authorization, requestTimeout, b.ringRefresh)
                : null;
    }

    /**
     * A builder for a client of the cluster whose nodes are at {@code urls} ({@code http://host:port}).
     *
     * @throws IllegalArgumentException if no URL is given or one is not an {@code http(s)://host:port} URL
     */
    public static Builder builder(String... urls) {
        return new Builder(List.of(urls));
    }

    /** The value of {@code key}, or empty if it has none (never written, deleted or expired). */
    public Optional<byte[]> get(String key) {
        return join(getAsync(key));
    }

    /** {@link #get} without blocking. */
    public CompletableFuture<Optional<byte[]>> getAsync(String key) {
        return getWithTypeAsync(key).thenApply(v -> v.map(StoredValue::value));
    }

    /**
     * The value of {@code key} with the content type its PUT stored ({@code application/octet-stream} if
     * none), or empty if it has none.
     */
    public Optional<StoredValue> getWithType(String key) {
        return join(getWithTypeAsync(key));
    }

    /** {@link #getWithType} without blocking. */
    public CompletableFuture<Optional<StoredValue>> getWithTypeAsync(String key) {
        return call("GET", entity(key), keyBytes(key), null, null, null, true, HttpResponse.BodyHandlers.ofByteArray())
                .thenApply(r -> {
                    if (r.statusCode() == 404) {
                        return Optional.empty();
                    }
                    requireStatus(r, 200);
                    return Optional.of(new StoredValue(
                            r.body(), r.headers().firstValue("content-type").orElse(StoredValue.DEFAULT_TYPE)));
                });
    }

    /**
     * Stores {@code value} under {@code key} with {@code contentType}, which a GET returns
     * ({@link #getWithType}), with no expiry.
     *
     * @param contentType printable US-ASCII {@code type/subtype[; parameters]} of at most 127 bytes; the node
     *                    answers anything else with 400 ({@link RingbaseException})
     */
    public void put(String key, byte[] value, String contentType) {
        join(putAsync(key, value, null, Objects.requireNonNull(contentType, "contentType")));
    }

    /** Stores {@code value} under {@code key}, with no expiry. */
    public void put(String key, byte[] value) {
        join(putAsync(key, value, null));
    }

    /**
     * Stores {@code value} under {@code key} for {@code ttl} (rounded up to ms).
     *
     * @throws IllegalArgumentException if {@code ttl} is not positive
     */
    public void put(String key, byte[] value, Duration ttl) {
        join(putAsync(key, value, ttl));
    }

    /** {@link #put(String, byte[], Duration)} without blocking; {@code ttl} {@code null} for none. */
    public CompletableFuture<Void> putAsync(String key, byte[] value, Duration ttl) {
        return putAsync(key, value, ttl, null);
    }

    /**
     * {@link #putAsync(String, byte[], Duration)} with a content type stored beside the value
     * ({@code null}: none, served as {@code application/octet-stream}).
     */
    public CompletableFuture<Void> putAsync(String key, byte[] value, Duration ttl, String contentType) {
        Objects.requireNonNull(value, "value");
        String target = entity(key);
        if (ttl != null) {
            if (ttl.isNegative() || ttl.isZero()) {
                throw new IllegalArgumentException("ttl must be positive, got " + ttl);
            }
            target += "&ttl="
                    + java.math.BigDecimal.valueOf(Math.max(1, ttl.toMillis()), 3)
                            .toPlainString();
        }
        return call("PUT", target, keyBytes(key), value, null, contentType, false, HttpResponse.BodyHandlers.ofString())
                .thenAccept(r -> requireStatus(r, 201));
    }

    /** Deletes {@code key} (a tombstone; no error if it had no value). */
    public void delete(String key) {
        join(deleteAsync(key));
    }

    /** {@link #delete} without blocking. */
    public CompletableFuture<Void> deleteAsync(String key) {
        return call("DELETE", entity(key), keyBytes(key), null, null, null, false, HttpResponse.BodyHandlers.ofString())
                .thenAccept(r -> requireStatus(r, 202));
    }

    /**
     * The live entries with {@code start <= key < end} in key order, streamed as the node sends them. The
     * stream holds a connection: close it (try-with-resources) if it is not read to its end. A failure in
     * the middle of the range throws {@link UncheckedIOException} from the stream.
     *
     * @param end the key after the range, or {@code null} for "to the last key"
     */
    public Stream<KeyValue> scan(String start, String end) {
        String target = "/v0/entities?start=" + encode(start) + (end == null ? "" : "&end=" + encode(end));
        HttpResponse<Stream<String>> r =
                join(call("GET", target, null, null, NDJSON, null, true, HttpResponse.BodyHandlers.ofLines()));
        if (r.statusCode() != 200) {
            r.body().close();
            throw new RingbaseException(r.statusCode(), "GET " + target + " answered " + r.statusCode());
        }
        return r.body().filter(line -> !line.isEmpty()).map(RingbaseClient::entry);
    }

    /** The JSON status of the node that answers ({@code GET /v0/status}). */
    public String status() {
        HttpResponse<String> r =
                join(call("GET", "/v0/status", null, null, null, null, true, HttpResponse.BodyHandlers.ofString()));
        requireStatus(r, 200);
        return r.body();
    }

    /** How this client routes point requests. */
    public Routing routing() {
        return router.routing();
    }

    /**
     * The metadata epoch of the placement point requests are routed by, or -1 while none is known (and
     * always with {@link Routing#RANDOM}).
     */
    public long ringEpoch() {
        ClusterRing r = router.ring();
        return r == null ? -1 : r.epoch();
    }

    /**
     * The URLs of the first {@code from} replicas of {@code key} (the request's {@code from}, by default the
     * replication factor) under the placement known now, most preferred first: where a point request on
     * {@code key} goes. Empty while no placement is known, and with {@link Routing#RANDOM}.
     */
    public List<String> replicasOf(String key) {
        ClusterRing r = router.ring();
        if (r == null) {
            return List.of();
        }
        int count = Math.min(from > 0 ? from : r.replicationFactor(), r.size());
        return r.replicas(keyBytes(key), count).stream().map(URI::toString).toList();
    }

    /** Closes the connections and stops the placement's refresh. */
    @Override
    public void close() {
        if (placement != null) {
            placement.close();
        }
        http.close();
    }

    /** One NDJSON line of a scan: {@code {"key":"<base64>","value":"<base64>"}}. */
    static KeyValue entry(String line) {
        int k = line.indexOf("\"key\":\"");
        int v = line.indexOf("\",\"value\":\"");
        int end = line.lastIndexOf("\"}");
        if (k < 0 || v < k || end < v) {
            throw new UncheckedIOException(new IOException("not a scan line: " + line));
        }
        java.util.Base64.Decoder b64 = java.util.Base64.getDecoder();
        return new KeyValue(b64.decode(line.substring(k + 7, v)), b64.decode(line.substring(v + 11, end)));
    }

    /** The target of a point request on {@code key}, with the quorum if one was set. */
    private String entity(String key) {
        return "/v0/entity?id=" + encode(key) + quorum;
    }

    private static byte[] keyBytes(String key) {
        return key.getBytes(StandardCharsets.UTF_8);
    }

    private static String encode(String key) {
        if (key == null || key.isEmpty()) {
            throw new IllegalArgumentException("a key is 1 to 65536 bytes of UTF-8, got an empty one");
        }
        return URLEncoder.encode(key, StandardCharsets.UTF_8);
    }

    private static void requireStatus(HttpResponse<?> r, int expected) {
        if (r.statusCode() != expected) {
            Object body = r.body();
            String reason = body instanceof String s
                    ? s.strip()
                    : body instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8).strip() : "";
            throw new RingbaseException(
                    r.statusCode(),
                    r.request().method() + " " + r.uri() + " answered " + r.statusCode()
                            + (reason.isEmpty() ? "" : ": " + reason));
        }
    }

    /**
     * Sends one request, to the node the router picks for {@code key} ({@code null}: a request without a key),
     * again on another after a refused connection, and after a backoff on a 503 or, if {@code idempotent}, a
     * timeout, a broken connection or a 504.
     */
    private <T> CompletableFuture<HttpResponse<T>> call(
            String method,
            String target,
            byte[] key,
            byte[] body,
            String accept,
            String contentType,
            boolean idempotent,
            HttpResponse.BodyHandler<T> handler) {
        CompletableFuture<HttpResponse<T>> result = new CompletableFuture<>();
        attempt(method, target, key, body, accept, contentType, idempotent, handler, 1, new ArrayList<>(), result);
        return result;
    }

    private <T> void attempt(
            String method,
            String target,
            byte[] key,
            byte[] body,
            String accept,
            String contentType,
            boolean idempotent,
            HttpResponse.BodyHandler<T> handler,
            int attempt,
            List<Throwable> failures,
            CompletableFuture<HttpResponse<T>> result) {
        URI node = router.pick(key, attempt);
        HttpRequest.Builder rb = HttpRequest.newBuilder(node.resolve(target))
                .timeout(requestTimeout)
                .method(
                        method,
                        body == null
                                ? HttpRequest.BodyPublishers.noBody()
                                : HttpRequest.BodyPublishers.ofByteArray(body));
        if (accept != null) {
            rb.header("Accept", accept);
        }
        if (contentType != null) {
            rb.header("Content-Type", contentType);
        }
        if (authorization != null) {
            rb.header("Authorization", authorization);
        }
        var _ = http.sendAsync(rb.build(), handler).whenComplete((r, failure) -> {
            boolean retry;
            long delayNanos = 0;
            if (failure != null) {
                Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                        ? failure.getCause()
                        : failure;
                failures.add(cause);
                boolean neverSent = cause instanceof ConnectException;
                if (neverSent) {
                    router.markDown(node);
                }
                if (placement != null) {
                    placement.failureSeen(); // a node gone or moved: the placement may have changed
                }
                retry = neverSent || (idempotent && (cause instanceof IOException));
                if (!neverSent) {
                    delayNanos = backoff(attempt);
                }
                if (!retry || attempt >= maxAttempts) {
                    result.completeExceptionally(new RingbaseException(
                            method + " " + target + " failed after " + attempt + " attempt(s)"
                                    + (cause instanceof HttpTimeoutException ? " (timed out)" : "")
                                    + (idempotent || neverSent ? "" : "; the write may have been applied"),
                            cause));
                    return;
                }
            } else {
                int s = r.statusCode();
                retry = s == 503 || (idempotent && s == 504);
                if (!retry || attempt >= maxAttempts) {
                    result.complete(r);
                    return;
                }
                if (r.body() instanceof Stream<?> lines) {
                    lines.close();
                }
                delayNanos = backoff(attempt);
            }
            Runnable again = () -> attempt(
                    method, target, key, body, accept, contentType, idempotent, handler, attempt + 1, failures, result);
            if (delayNanos == 0) {
                again.run();
            } else {
                CompletableFuture.delayedExecutor(delayNanos, TimeUnit.NANOSECONDS)
                        .execute(again);
            }
        });
    }

    /** Full jitter: a random delay up to the base backoff doubled per attempt, ns. */
    private long backoff(int attempt) {
        long cap = backoffNanos << Math.min(attempt - 1, 10);
        return 1 + ThreadLocalRandom.current().nextLong(Math.max(1, cap));
    }

    private static <T> T join(CompletableFuture<T> f) {
        try {
            return f.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw e;
        }
    }

    /** Settings of a {@link RingbaseClient}. */
    public static final class Builder {
        private final List<URI> nodes = new ArrayList<>();
        private Duration requestTimeout = Duration.ofSeconds(10);
        private Duration connectTimeout = Duration.ofSeconds(2);
        private Duration backoff = Duration.ofMillis(50);
        private Duration downFor = Duration.ofSeconds(1);
        private int maxAttempts = 3;
        private Routing routing = Routing.REPLICA;
        private Duration ringRefresh = Duration.ofSeconds(10);
        private String token;
        private SSLContext ssl;
        private int ack;
        private int from;

        private Builder(List<String> urls) {
            if (urls.isEmpty()) {
                throw new IllegalArgumentException("give at least one node URL, e.g. http://localhost:8080");
            }
            for (String url : urls) {
                URI uri = URI.create(url.trim());
                if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))
                        || uri.getHost() == null
                        || uri.getPort() <= 0) {
                    throw new IllegalArgumentException("'" + url + "' is not a URL of the form http://host:port");
                }
                nodes.add(URI.create(uri.getScheme() + "://" + uri.getHost() + ":" + uri.getPort()));
            }
        }

        /** How long a request may take, answer included (default 10 s). */
        public Builder requestTimeout(Duration timeout) {
            this.requestTimeout = positive(timeout, "requestTimeout");
            return this;
        }

        /** How long a connection may take to open (default 2 s). */
        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = positive(timeout, "connectTimeout");
            return this;
        }

        /** The first retry's largest backoff, doubled at each further one (default 50 ms). */
        public Builder backoff(Duration base) {
            this.backoff = positive(base, "backoff");
            return this;
        }

        /** How long a node that refused a connection is skipped (default 1 s). */
        public Builder downFor(Duration time) {
            this.downFor = positive(time, "downFor");
            return this;
        }

        /** Attempts of a request in all, 1-10 (default 3). */
        public Builder maxAttempts(int attempts) {
            if (attempts < 1 || attempts > 10) {
                throw new IllegalArgumentException("maxAttempts must be 1-10, got " + attempts);
            }
            this.maxAttempts = attempts;
            return this;
        }

        /**
         * The TLS settings of {@code https://} nodes: whom to trust and, for a node with {@code --tls-ca},
         * the certificate to present (default: the JDK's default context, which trusts the JDK's CAs).
         */
        public Builder sslContext(SSLContext context) {
            this.ssl = Objects.requireNonNull(context, "context");
            return this;
        }

        /**
         * Trusts the CA certificates of the PEM file {@code caFile} (and no other) for {@code https://} nodes:
         * the {@code --tls-ca} or the issuer of the nodes' {@code --tls-cert}. For a client certificate as
         * well, build an {@link SSLContext} and give it to {@link #sslContext}.
         *
         * @throws IOException if the file cannot be read
         * @throws IllegalArgumentException if it holds no PEM certificate
         */
        public Builder trustedCa(Path caFile) throws IOException {
            try (InputStream in = Files.newInputStream(caFile)) {
                Collection<? extends Certificate> certs =
                        CertificateFactory.getInstance("X.509").generateCertificates(in);
                if (certs.isEmpty()) {
                    throw new IllegalArgumentException(caFile + " holds no PEM certificate");
                }
                KeyStore trust = KeyStore.getInstance("PKCS12");
                trust.load(null, null);
                int i = 0;
                for (Certificate c : certs) {
                    trust.setCertificateEntry("ca-" + i++, c);
                }
                TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                tmf.init(trust);
                SSLContext context = SSLContext.getInstance("TLS");
                context.init(null, tmf.getTrustManagers(), null);
                return sslContext(context);
            } catch (GeneralSecurityException e) {
                throw new IllegalArgumentException(caFile + " cannot be used as a CA: " + e.getMessage(), e);
            }
        }

        /** A bearer token sent with every request (a node with a token file wants one). */
        public Builder bearerToken(String bearer) {
            this.token = Objects.requireNonNull(bearer, "token");
            return this;
        }

        /**
         * Sends point requests to {@code from} of a key's replicas and waits for {@code ack} of them
         * ({@code docs/http-api.md}, "Replication"); by default the cluster's (a majority of all replicas).
         *
         * @throws IllegalArgumentException unless {@code 0 < ack <= from}
         */
        public Builder quorum(int ack, int from) {
            if (ack < 1 || ack > from) {
                throw new IllegalArgumentException("need 0 < ack <= from, got ack=" + ack + " from=" + from);
            }
            this.ack = ack;
            this.from = from;
            return this;
        }

        /**
         * Where point requests go (default {@link Routing#REPLICA}: to a replica of the key, by the cluster's
         * placement; {@link Routing#RANDOM}: to the given nodes in turn).
         */
        public Builder routing(Routing how) {
            this.routing = Objects.requireNonNull(how, "routing");
            return this;
        }

        /**
         * How often the cluster's placement is fetched again with {@link Routing#REPLICA} (default 10 s); a
         * node that fails to answer also makes the client fetch it, at most once a second.
         */
        public Builder ringRefresh(Duration period) {
            this.ringRefresh = positive(period, "ringRefresh");
            return this;
        }

        /** The client. */
        public RingbaseClient build() {
            return new RingbaseClient(this);
        }

        private static Duration positive(Duration d, String what) {
            if (d == null || d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(what + " must be positive, got " + d);
            }
            return d;
        }
    }
}
