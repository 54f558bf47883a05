package io.ringbase.node;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Concurrent writers that each PUT their own fresh keys in a loop and now and then DELETE one of
 * their own earlier keys, recording every request the node acknowledged (201/202). Each writer has one
 * request in flight at a time, so per key the order of its operations is the order they were sent.
 *
 * <p>After the node dies the writers fail and stop; {@link #expected()} then says what every key must
 * read as: the last acknowledged operation on it wins. A key that saw a request with no
 * acknowledgement (in flight at the kill, or answered 503) may or may not have changed, so it is left
 * out. Any 201/202 the client received was sent before the node died, so every one of them counts.
 */
final class AckedWrites {

    /** What a key must read as: {@code value} or, when null, 404 (deleted). */
    record Expectation(String key, byte[] value) {
        boolean live() {
            return value != null;
        }
    }

    private final NodeClient client;
    private final int writers;
    private final int minValueBytes;
    private final int maxValueBytes;
    private final int deleteEvery;
    private final long seed;
    private final List<Thread> threads = new ArrayList<>();
    private final List<Map<String, byte[]>> ackedState = new ArrayList<>();
    private final List<Set<String>> uncertain = new ArrayList<>();
    private final AtomicLong ackedOps = new AtomicLong();
    private final AtomicLong ackedBytes = new AtomicLong();
    private final List<String> unexpectedStatuses = Collections.synchronizedList(new ArrayList<>());
    private volatile long bytesTarget = Long.MAX_VALUE;
    private final CountDownLatch bytesReached = new CountDownLatch(1);
    private volatile long opsTarget = Long.MAX_VALUE;
    private final CountDownLatch opsReached = new CountDownLatch(1);

    /**
     * @param deleteEvery every this many operations a writer deletes one of its live keys (0: never)
     */
    AckedWrites(NodeClient client, int writers, int minValueBytes, int maxValueBytes, int deleteEvery, long seed) {
        this.client = client;
        this.writers = writers;
        this.minValueBytes = minValueBytes;
        this.maxValueBytes = maxValueBytes;
        this.deleteEvery = deleteEvery;
        this.seed = seed;
        for (int w = 0; w < writers; w++) {
            ackedState.add(new LinkedHashMap<>());
            uncertain.add(new HashSet<>());
        }
    }

    /** The key of operation {@code i} of writer {@code w}; it sorts by writer, then by number. */
    static String key(int w, long i) {
        return String.format("w%02d/%08d", w, i);
    }

    /**
     * A distinct value for {@code (w, i)}: every fourth one binary bytes (including CR, LF and NUL),
     * the others text, all starting with the key so no two are equal.
     */
    static byte[] value(int w, long i, int size) {
        byte[] head = (key(w, i) + "=").getBytes(StandardCharsets.UTF_8);
        byte[] v = new byte[Math.max(size, head.length)];
        System.arraycopy(head, 0, v, 0, head.length);
        Random r = new Random(w * 1_000_003L + i);
        if (i % 4 == 0) {
            for (int j = head.length; j < v.length; j++) {
                v[j] = (byte) r.nextInt(256);
            }
            if (v.length > head.length + 3) {
                v[head.length] = '\n';
                v[head.length + 1] = '\r';
                v[head.length + 2] = 0;
            }
        } else {
            for (int j = head.length; j < v.length; j++) {
                v[j] = (byte) ('a' + r.nextInt(26));
            }
        }
        return v;
    }

    void start() {
        for (int w = 0; w < writers; w++) {
            int id = w;
            threads.add(Thread.ofPlatform().name("writer-" + w).start(() -> write(id)));
        }
    }

    /** Waits until at least {@code bytes} of values were acknowledged; false after {@code deadline}. */
    boolean awaitAckedBytes(long bytes, Duration deadline) throws InterruptedException {
        bytesTarget = bytes;
        if (ackedBytes.get() >= bytes) {
            return true;
        }
        return bytesReached.await(deadline.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Waits until at least {@code ops} requests were acknowledged; false after {@code deadline}. */
    boolean awaitAckedOps(long ops, Duration deadline) throws InterruptedException {
        opsTarget = ops;
        if (ackedOps.get() >= ops) {
            return true;
        }
        return opsReached.await(deadline.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void write(int w) {
        Random random = new Random(seed + w);
        Map<String, byte[]> state = ackedState.get(w);
        Set<String> unsure = uncertain.get(w);
        List<String> live = new ArrayList<>();
        for (long i = 0; ; i++) {
            boolean delete = deleteEvery > 0 && i % deleteEvery == deleteEvery - 1 && !live.isEmpty();
            String key;
            byte[] value;
            int status;
            if (delete) {
                key = live.remove(random.nextInt(live.size()));
                value = null;
            } else {
                key = key(w, i);
                value = value(w, i, minValueBytes + random.nextInt(maxValueBytes - minValueBytes + 1));
            }
            try {
                status = delete ? client.delete(key) : client.put(key, value);
            } catch (IOException | InterruptedException e) {
                synchronized (state) {
                    unsure.add(key); // in flight when the node died: may or may not have landed
                }
                return;
            }
            synchronized (state) {
                if (status == (delete ? 202 : 201)) {
                    state.put(key, value);
                    if (!delete) {
                        live.add(key);
                    }
                } else {
                    unsure.add(key);
                    if (status != 503) {
                        unexpectedStatuses.add((delete ? "DELETE " : "PUT ") + key + " -> " + status);
                    }
                }
            }
            if (status == 201 || status == 202) {
                if (ackedOps.incrementAndGet() >= opsTarget) {
                    opsReached.countDown();
                }
                if (ackedBytes.addAndGet(value == null ? 0 : value.length) >= bytesTarget) {
                    bytesReached.countDown();
                }
            }
        }
    }

    /** Waits for every writer to stop (they stop at the first I/O failure, i.e. once the node is dead). */
    void awaitWritersStopped(Duration deadline) throws InterruptedException {
        long until = System.nanoTime() + deadline.toNanos();
        for (Thread t : threads) {
            long left = Math.max(1, TimeUnit.NANOSECONDS.toMillis(until - System.nanoTime()));
            t.join(left);
            if (t.isAlive()) {
                throw new IllegalStateException(t.getName() + " still running " + deadline + " after the node died");
            }
        }
    }

    long ackedOps() {
        return ackedOps.get();
    }

    long ackedBytes() {
        return ackedBytes.get();
    }

    /** Answers other than the acknowledgement and 503, e.g. "PUT w01/00000042 -> 500". */
    List<String> unexpectedStatuses() {
        synchronized (unexpectedStatuses) {
            return List.copyOf(unexpectedStatuses);
        }
    }

    /** Every key whose state is certain, with what it must read as. Call after the writers stopped. */
    List<Expectation> expected() {
        List<Expectation> out = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            Map<String, byte[]> state = ackedState.get(w);
            synchronized (state) {
                for (Map.Entry<String, byte[]> e : state.entrySet()) {
                    if (!uncertain.get(w).contains(e.getKey())) {
                        out.add(new Expectation(e.getKey(), e.getValue()));
                    }
                }
            }
        }
        return out;
    }

    /** Keys some unacknowledged request touched: not asserted on. */
    Set<String> uncertainKeys() {
        Set<String> out = new HashSet<>();
        for (int w = 0; w < writers; w++) {
            synchronized (ackedState.get(w)) {
                out.addAll(uncertain.get(w));
            }
        }
        return out;
    }

    /**
     * Reads every expected key back with GET and the whole key space with one range scan, and returns
     * a description of every difference (empty when the node kept exactly what it acknowledged).
     */
    static List<String> differences(NodeClient client, List<Expectation> expected, Set<String> uncertain)
            throws IOException, InterruptedException {
        List<String> problems = new ArrayList<>();
        Map<String, byte[]> scanned = new LinkedHashMap<>();
        String[] previous = {null};
        client.scan("w", "x", (k, v) -> {
            if (previous[0] != null && previous[0].compareTo(k) >= 0) {
                problems.add("range out of order: '" + previous[0] + "' then '" + k + "'");
            }
            previous[0] = k;
            scanned.put(k, v);
        });
        Set<String> known = new HashSet<>();
        for (Expectation e : expected) {
            known.add(e.key());
            NodeClient.Answer got = client.get(e.key());
            if (e.live()) {
                if (got.status() != 200) {
                    problems.add("GET " + e.key() + ": acknowledged PUT, got " + got.status());
                } else if (!Arrays.equals(got.body(), e.value())) {
                    problems.add("GET " + e.key() + ": wrong value (" + got.body().length + " bytes, expected "
                            + e.value().length + ")");
                }
                byte[] inRange = scanned.get(e.key());
                if (inRange == null) {
                    problems.add("range: acknowledged key " + e.key() + " missing");
                } else if (!Arrays.equals(inRange, e.value())) {
                    problems.add("range: wrong value for " + e.key());
                }
            } else {
                if (got.status() != 404) {
                    problems.add("GET " + e.key() + ": acknowledged DELETE, got " + got.status());
                }
                if (scanned.containsKey(e.key())) {
                    problems.add("range: acknowledged DELETE of " + e.key() + " but the key is listed");
                }
            }
        }
        for (String k : scanned.keySet()) {
            if (!known.contains(k) && !uncertain.contains(k)) {
                problems.add("range: key " + k + " was never acknowledged nor in flight");
            }
        }
        return problems;
    }
}
