package io.ringbase.aot;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * The load of a training run: every kind of request a node serves, from {@code connections} threads with
 * one request in flight each (a closed loop) over keep-alive HTTP/1.1 connections
 * ({@link BlockingHttpConnection}). The run is split into the {@link Phase}s, in order, each for its share of
 * the time.
 *
 * <p>What the JVM learns from a run is which classes are loaded and, per method, which branches and types
 * the code met (its profile). A node started with the cache compiles its hot code from those profiles
 * instead of first gathering its own, and code compiled from a profile that has seen a rare branch (a full
 * memtable, a batch of one, a longer key, a status request) is not thrown away the first time that branch is
 * taken. So the phases go through those branches on purpose: keys of growing length, a memtable small enough
 * to be flushed and compacted during the run ({@code ringbase aot-train} starts its node so), values of many
 * sizes, tombstones, TTLs, range scans and the operator's endpoints.
 *
 * <p>Each thread also closes its connection every {@value #RECONNECT_EVERY} requests and opens a new one,
 * in every phase. Without it the profile of Netty's event loop saw accepts only at the start: C2 compiled
 * the read path (the registration's {@code handle}, the channel's {@code Unsafe}, the receive buffer
 * handle) for the stream channel's classes alone, and the first time clients reconnected to a node that had
 * served them for a while, the server channel's classes at those call sites hit {@code class_check}
 * uncommon traps: the event loop's whole compiled read path was thrown away and ran interpreted until C2
 * had compiled it again, half a second of late answers on one CPU.
 *
 * <p>Every answer is checked: a status the node should not give fails the run.
 */
public final class TrainingLoad {

    /** The phases of a run, in order, with their shares of its duration. */
    public enum Phase {
        /** GETs of keys never written: the HTTP path and the read path's misses (Bloom filters, key filter). */
        GET_MISSING(0.20),
        /** PUTs of new keys, 100-byte values: the write path, WAL, memtable, flushes and compactions. */
        PUT_NEW(0.45),
        /** GETs of keys written by the same thread, all answered 200. */
        GET_PRESENT(0.20),
        /**
         * All kinds: GETs, overwrites with values of 0-2,000 bytes (some with a TTL), DELETEs, and every 500th
         * request a short range scan or an operator's request ({@code /health}, {@code /v0/status},
         * {@code /metrics}).
         */
        MIXED(0.15);

        private final double share;

        Phase(double share) {
            this.share = share;
        }
    }

    /** Requests answered per phase (all threads). */
    public record Result(Map<Phase, Long> requests) {
        public Result {
            requests = Collections.unmodifiableMap(new EnumMap<>(requests));
        }

        /** All requests of the run. */
        public long total() {
            return requests.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    private static final int VALUE_BYTES = 100;
    private static final int MAX_MIXED_VALUE_BYTES = 2_000;
    private static final int RARE_EVERY = 500;
    /** Requests per connection before a thread closes it and opens a new one (class comment). */
    static final int RECONNECT_EVERY = 250;

    private static final int MAX_RETRIES = 1_000;

    private final InetSocketAddress node;
    private final long durationNanos;
    private final long start;
    private final Map<Phase, LongAdder> counts = new EnumMap<>(Phase.class); // all phases, filled once
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    private TrainingLoad(InetSocketAddress node, Duration duration) {
        this.node = node;
        this.durationNanos = duration.toNanos();
        this.start = System.nanoTime();
        for (Phase phase : Phase.values()) {
            counts.put(phase, new LongAdder());
        }
    }

    /**
     * Runs the load against the node at {@code node} for {@code duration}.
     *
     * @param connections threads, each with one request in flight, 1-256
     * @return the requests answered per phase
     * @throws IOException if a request fails or is answered with a status the node should not give (the
     *                     message names the request and the status)
     * @throws IllegalArgumentException if {@code connections} or {@code duration} is out of range
     */
    public static Result run(InetSocketAddress node, Duration duration, int connections)
            throws IOException, InterruptedException {
        if (connections < 1 || connections > 256) {
            throw new IllegalArgumentException("connections must be 1-256, got " + connections);
        }
        if (duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException("duration must be positive, got " + duration);
        }
        TrainingLoad load = new TrainingLoad(node, duration);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < connections; t++) {
            Worker worker = load.new Worker(t);
            threads.add(Thread.ofPlatform().name("aot-train-" + t).start(worker::run));
        }
        for (Thread thread : threads) {
            thread.join();
        }
        Throwable failed = load.failure.get();
        if (failed instanceof IOException e) {
            throw e;
        }
        if (failed != null) {
            throw new IOException("training load failed: " + failed, failed);
        }
        Map<Phase, Long> requests = new EnumMap<>(Phase.class);
        for (Phase phase : Phase.values()) {
            requests.put(phase, load.counts.get(phase).sum());
        }
        return new Result(requests);
    }

    /** The phase at {@code elapsedNanos} into the run, or {@code null} once it is over. */
    static Phase phaseAt(long elapsedNanos, long durationNanos) {
        double at = (double) elapsedNanos / durationNanos;
        double end = 0;
        for (Phase phase : Phase.values()) {
            end += phase.share;
            if (at < end) {
                return phase;
            }
        }
        return null;
    }

    /** Key {@code n} of thread {@code id}: decimal, so keys grow longer as the run goes on. */
    static String key(int id, long n) {
        return "aot-" + id + "-" + n;
    }

    /** One thread's connection and keys: key(id, 0..written-1) are its writes. */
    private final class Worker {
        private final int id;
        private final SplittableRandom random;
        private final BlockingHttpConnection http = new BlockingHttpConnection(node);
        private long written;
        private long missing;
        private long requests;

        Worker(int id) {
            this.id = id;
            this.random = new SplittableRandom(id);
        }

        void run() {
            try (http) {
                for (Phase phase = phaseAt(0, durationNanos);
                        phase != null && failure.get() == null;
                        phase = phaseAt(System.nanoTime() - start, durationNanos)) {
                    requests++;
                    switch (phase) {
                        case GET_MISSING -> expect("GET", "/v0/entity?id=missing-" + id + "-" + missing++, null, 404);
                        case PUT_NEW -> put(key(id, written++), VALUE_BYTES, null);
                        case GET_PRESENT -> {
                            if (written == 0) { // no PUT phase reached (a very short run)
                                put(key(id, written++), VALUE_BYTES, null);
                            } else {
                                expect("GET", "/v0/entity?id=" + key(id, random.nextLong(written)), null, 200);
                            }
                        }
                        case MIXED -> mixed();
                    }
                    counts.get(phase).increment();
                    if (requests % RECONNECT_EVERY == 0) {
                        http.close(); // the next request connects anew
                    }
                }
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
            }
        }

        /** One request of the mixed phase. */
        private void mixed() throws IOException, InterruptedException {
            if (requests % RARE_EVERY == 0) {
                switch ((int) (requests / RARE_EVERY % 4)) {
                    case 0 -> expect("GET", "/health", null, 200);
                    case 1 -> expect("GET", "/v0/status", null, 200);
                    case 2 -> expect("GET", "/metrics", null, 200);
                    default -> {
                        String from = key(id, random.nextLong(Math.max(1, written)));
                        expect("GET", "/v0/entities?start=" + from + "&end=" + from + "0", null, 200);
                    }
                }
                return;
            }
            int dice = random.nextInt(100);
            if (dice < 50 && written > 0) { // a key of this thread, perhaps deleted
                int status = send("GET", "/v0/entity?id=" + key(id, random.nextLong(written)), null)
                        .status();
                if (status != 200 && status != 404) {
                    throw new IOException("a GET of a written key was answered " + status + ", expected 200 or 404");
                }
            } else if (dice < 85) {
                boolean fresh = written == 0 || random.nextInt(4) == 0;
                String key = fresh ? key(id, written++) : key(id, random.nextLong(written));
                put(key, random.nextInt(MAX_MIXED_VALUE_BYTES + 1), random.nextInt(10) == 0 ? "3600" : null);
            } else if (dice < 95 && written > 0) {
                expect("DELETE", "/v0/entity?id=" + key(id, random.nextLong(written)), null, 202);
            } else {
                expect("GET", "/v0/entity?id=missing-" + id + "-m" + requests, null, 404);
            }
        }

        private void put(String key, int valueBytes, String ttlSeconds) throws IOException, InterruptedException {
            byte[] value = new byte[valueBytes];
            for (int i = 0; i < valueBytes; i++) {
                value[i] = (byte) ('a' + (i + key.length()) % 26);
            }
            String target = "/v0/entity?id=" + key + (ttlSeconds == null ? "" : "&ttl=" + ttlSeconds);
            expect("PUT", target, value, 201);
        }

        /** Sends a request; a 503 (the node shedding writes while it catches up) is retried after 10 ms. */
        private BlockingHttpConnection.Answer send(String method, String target, byte[] body)
                throws IOException, InterruptedException {
            try {
                BlockingHttpConnection.Answer answer = http.send(method, target, body);
                for (int retry = 0; answer.status() == 503 && retry < MAX_RETRIES; retry++) {
                    Thread.sleep(10);
                    answer = http.send(method, target, body);
                }
                return answer;
            } catch (IOException e) {
                throw new IOException(
                        method + " " + target + " at " + (System.nanoTime() - start) / 1_000_000 + " ms into the run: "
                                + e.getMessage(),
                        e);
            }
        }

        private void expect(String method, String target, byte[] body, int status)
                throws IOException, InterruptedException {
            BlockingHttpConnection.Answer answer = send(method, target, body);
            if (answer.status() != status) {
                String text = new String(answer.body(), StandardCharsets.UTF_8).strip();
                throw new IOException(method + " " + target + " was answered " + answer.status() + ", expected "
                        + status + (text.isEmpty() ? "" : ": " + text));
            }
        }
    }
}
