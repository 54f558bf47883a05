package io.ringbase.api;

import io.ringbase.tls.TlsOptions;
import java.util.Objects;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Settings of one {@link RingbaseHttpServer}; every value is checked in the constructor.
 *
 * @param host           address to bind (default {@value #DEFAULT_HOST}); must not be blank
 * @param port           TCP port to bind, 0..65535; 0 picks an ephemeral port ({@link RingbaseHttpServer#start()}
 *                       returns the one bound)
 * @param maxBodyBytes   largest request body accepted, in bytes (default {@value #DEFAULT_MAX_BODY_BYTES}, 16 MiB);
 *                       a larger body is answered with 413; at least 1
 * @param workerThreads  threads that run requests against the engine (default {@value #DEFAULT_WORKER_THREADS});
 *                       at least 1
 * @param queueCapacity  requests that may wait for a worker before new ones are answered with 503
 *                       (default {@value #DEFAULT_QUEUE_CAPACITY}); at least 1
 * @param ioThreads      Netty event-loop threads for accepting and socket I/O (default {@link #defaultIoThreads()}:
 *                       one per CPU the process may use); at least 1
 * @param inlinePointRequests whether point requests ({@code /v0/entity}, {@code /internal/v0/entry} and
 *                       {@code /internal/v0/ping}) run on the event loop that read them rather than on a
 *                       worker, when the engine says a write will not wait for an fsync or a stalled flush
 *                       ({@link io.ringbase.storage.StorageEngine#writeMayBlock()}); default true. It
 *                       spares two thread hand-offs per request (and, in a cluster, per replica call).
 * @param requestTimeoutMs longest time a request may take to arrive once its first byte has, in ms
 *                       (default {@value #DEFAULT_REQUEST_TIMEOUT_MS}); a slower one is answered 408 and
 *                       its connection closed (a client that sends half a request and stops, Slowloris)
 * @param idleTimeoutMs  an open connection with no request in progress is closed after this long without
 *                       a byte from the client, in ms (default {@value #DEFAULT_IDLE_TIMEOUT_MS})
 * @param maxConnections most connections open at once (default {@value #DEFAULT_MAX_CONNECTIONS}); past
 *                       it a new connection is closed at once and a WARN line says so (at most one per
 *                       10 s)
 * @param scanIdleTimeoutMs a range response whose client takes no byte of it for this long, in ms, is
 *                       abandoned and its connection closed, with a WARN line, so a client that stops
 *                       reading cannot pin the engine's tables and memtables (default
 *                       {@value #DEFAULT_SCAN_IDLE_TIMEOUT_MS}); positive
 * @param tls            the certificate, key and client CA of TLS on the port ({@code serve --tls-cert}),
 *                       or {@code null} for plain HTTP (the default). With it, plain HTTP requests are
 *                       answered with one 400 and the connection closed; the node-to-node protocol
 *                       ({@link RingbaseHttpServer}'s sniffer) is still taken plain or inside TLS
 */
public record HttpServerConfig(
        String host,
        int port,
        int maxBodyBytes,
        int workerThreads,
        int queueCapacity,
        int ioThreads,
        boolean inlinePointRequests,
        long requestTimeoutMs,
        long idleTimeoutMs,
        int maxConnections,
        long scanIdleTimeoutMs,
        @Nullable TlsOptions tls) {

    public static final String DEFAULT_HOST = "0.0.0.0";
    public static final int DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;
    public static final int DEFAULT_WORKER_THREADS = 8;
    public static final int DEFAULT_QUEUE_CAPACITY = 1024;
    public static final long DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
    public static final long DEFAULT_IDLE_TIMEOUT_MS = 120_000;
    public static final int DEFAULT_MAX_CONNECTIONS = 4096;
    public static final long DEFAULT_SCAN_IDLE_TIMEOUT_MS = 60_000;

    /** Event loops of tests and tools that want a fixed number whatever the machine. */
    public static final int DEFAULT_IO_THREADS = 2;

    /**
     * One event loop per CPU this process may use ({@link Runtime#availableProcessors()}, which follows
     * the CPU affinity and cgroup quota): more loops than CPUs only add context switches, and two loops
     * on one CPU contend for the WAL's group-commit lock (a loop preempted inside a {@code write()} left
     * the other parked on a futex: two-thirds of a futex call per PUT in a pinned node's syscall count).
     */
    public static int defaultIoThreads() {
        return Math.max(1, Runtime.getRuntime().availableProcessors());
    }

    public HttpServerConfig {
        Objects.requireNonNull(host, "host");
        if (host.isBlank()) {
            throw new IllegalArgumentException("host must not be blank");
        }
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("port " + port + " is outside 0..65535");
        }
        requirePositive("maxBodyBytes", maxBodyBytes);
        requirePositive("workerThreads", workerThreads);
        requirePositive("queueCapacity", queueCapacity);
        requirePositive("ioThreads", ioThreads);
        if (requestTimeoutMs <= 0 || idleTimeoutMs <= 0 || scanIdleTimeoutMs <= 0) {
            throw new IllegalArgumentException("request, idle and scan idle timeouts must be positive");
        }
        requirePositive("maxConnections", maxConnections);
    }

    /** The settings without TLS (plain HTTP). */
    public HttpServerConfig(
            String host,
            int port,
            int maxBodyBytes,
            int workerThreads,
            int queueCapacity,
            int ioThreads,
            boolean inlinePointRequests,
            long requestTimeoutMs,
            long idleTimeoutMs,
            int maxConnections,
            long scanIdleTimeoutMs) {
        this(
                host,
                port,
                maxBodyBytes,
                workerThreads,
                queueCapacity,
                ioThreads,
                inlinePointRequests,
                requestTimeoutMs,
                idleTimeoutMs,
                maxConnections,
                scanIdleTimeoutMs,
                null);
    }

    /** This config with TLS on the port ({@code null}: plain HTTP). */
    public HttpServerConfig withTls(@Nullable TlsOptions options) {
        return with(c -> c.tls = options);
    }

    /** The settings with the default scan idle timeout. */
    public HttpServerConfig(
            String host,
            int port,
            int maxBodyBytes,
            int workerThreads,
            int queueCapacity,
            int ioThreads,
            boolean inlinePointRequests,
            long requestTimeoutMs,
            long idleTimeoutMs,
            int maxConnections) {
        this(
                host,
                port,
                maxBodyBytes,
                workerThreads,
                queueCapacity,
                ioThreads,
                inlinePointRequests,
                requestTimeoutMs,
                idleTimeoutMs,
                maxConnections,
                DEFAULT_SCAN_IDLE_TIMEOUT_MS);
    }

    /** This config with another scan idle timeout, ms. */
    public HttpServerConfig withScanIdleTimeout(long ms) {
        return with(c -> c.scanIdleTimeoutMs = ms);
    }

    /** The settings without connection limits given: the defaults for those. */
    public HttpServerConfig(
            String host,
            int port,
            int maxBodyBytes,
            int workerThreads,
            int queueCapacity,
            int ioThreads,
            boolean inlinePointRequests) {
        this(
                host,
                port,
                maxBodyBytes,
                workerThreads,
                queueCapacity,
                ioThreads,
                inlinePointRequests,
                DEFAULT_REQUEST_TIMEOUT_MS,
                DEFAULT_IDLE_TIMEOUT_MS,
                DEFAULT_MAX_CONNECTIONS);
    }

    /** This config with other connection limits (see the record's parameters). */
    public HttpServerConfig withConnectionLimits(long requestTimeout, long idleTimeout, int connections) {
        return with(c -> {
            c.requestTimeoutMs = requestTimeout;
            c.idleTimeoutMs = idleTimeout;
            c.maxConnections = connections;
        });
    }

    /** The defaults above, on {@code port} (0 for an ephemeral port). */
    public static HttpServerConfig defaults(int port) {
        return new HttpServerConfig(
                DEFAULT_HOST,
                port,
                DEFAULT_MAX_BODY_BYTES,
                DEFAULT_WORKER_THREADS,
                DEFAULT_QUEUE_CAPACITY,
                defaultIoThreads(),
                true);
    }

    /** This config with another bind address. */
    public HttpServerConfig withHost(String newHost) {
        return with(c -> c.host = newHost);
    }

    /** This config with another body limit. */
    public HttpServerConfig withMaxBodyBytes(int bytes) {
        return with(c -> c.maxBodyBytes = bytes);
    }

    /** This config with another worker pool: {@code threads} workers and a queue of {@code capacity}. */
    public HttpServerConfig withWorkers(int threads, int capacity) {
        return with(c -> {
            c.workerThreads = threads;
            c.queueCapacity = capacity;
        });
    }

    /** This config with point requests run on the event loop ({@code true}) or always on a worker. */
    public HttpServerConfig withInlinePointRequests(boolean inline) {
        return with(c -> c.inlinePointRequests = inline);
    }

    private static void requirePositive(String name, int value) {
        if (value < 1) {
            throw new IllegalArgumentException(name + " must be at least 1, was " + value);
        }
    }

    /**
     * A copy of this config with the fields {@code change} sets: the one place besides the record header
     * that lists every field in order, so that each {@code withX} names only what it changes.
     */
    private HttpServerConfig with(Consumer<Fields> change) {
        Fields f = new Fields(this);
        change.accept(f);
        return f.config();
    }

    /** The fields of a config, mutable for {@link #with}. */
    private static final class Fields {
        String host;
        int port;
        int maxBodyBytes;
        int workerThreads;
        int queueCapacity;
        int ioThreads;
        boolean inlinePointRequests;
        long requestTimeoutMs;
        long idleTimeoutMs;
        int maxConnections;
        long scanIdleTimeoutMs;

        @Nullable
        TlsOptions tls;

        Fields(HttpServerConfig c) {
            host = c.host;
            port = c.port;
            maxBodyBytes = c.maxBodyBytes;
            workerThreads = c.workerThreads;
            queueCapacity = c.queueCapacity;
            ioThreads = c.ioThreads;
            inlinePointRequests = c.inlinePointRequests;
            requestTimeoutMs = c.requestTimeoutMs;
            idleTimeoutMs = c.idleTimeoutMs;
            maxConnections = c.maxConnections;
            scanIdleTimeoutMs = c.scanIdleTimeoutMs;
            tls = c.tls;
        }

        HttpServerConfig config() {
            return new HttpServerConfig(
                    host,
                    port,
                    maxBodyBytes,
                    workerThreads,
                    queueCapacity,
                    ioThreads,
                    inlinePointRequests,
                    requestTimeoutMs,
                    idleTimeoutMs,
                    maxConnections,
                    scanIdleTimeoutMs,
                    tls);
        }
    }
}
