package io.ringbase.bench.ycsb;

import io.ringbase.client.KeyValue;
import io.ringbase.client.RingbaseClient;
import io.ringbase.client.RingbaseException;
import io.ringbase.client.Routing;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * A YCSB binding for Ringbase on its Java client ({@link RingbaseClient}). A record is one value (encoded by
 * {@link RecordCodec}) under the key {@code <table>:<key>}; {@code update} reads the record, merges the fields
 * and writes it back (two requests); {@code scan} streams the range from the start key up to the end of the
 * table and takes the first {@code recordcount} records.
 *
 * <p>Properties: {@code ringbase.urls} (comma-separated node URLs, default {@code http://127.0.0.1:8080}),
 * {@code ringbase.routing} ({@code replica}, the default: each read and write goes to a replica of its key by
 * the cluster's placement; {@code random}: to the nodes in turn, {@link Routing}), {@code ringbase.ack} and
 * {@code ringbase.from} (the quorum of point requests, when positive), {@code ringbase.timeout.ms} (per
 * request, default 10000 ms). One client serves
 * every thread of the run (YCSB makes a {@code DB} per thread); the last thread's {@code cleanup} closes it.
 * Answers: a value or a write is {@link Status#OK}, a missing key on read {@link Status#NOT_FOUND}, a
 * {@link RingbaseException} (an error status, or no node answering) {@link Status#ERROR}.
 */
public class RingbaseHttpDb extends DB {

    private static final AtomicInteger ERRORS = new AtomicInteger();
    /** Failures printed to stderr at most. */
    static final int ERRORS_SHOWN = 10;

    private static final Object LOCK = new Object();
    private static RingbaseClient shared; // guarded by LOCK
    private static int users; // guarded by LOCK

    private RingbaseClient client;

    @Override
    public void init() throws DBException {
        var p = getProperties();
        synchronized (LOCK) {
            if (shared == null) {
                try {
                    List<String> urls = List.of(p.getProperty("ringbase.urls", "http://127.0.0.1:8080")
                            .split(","));
                    RingbaseClient.Builder b = RingbaseClient.builder(urls.toArray(String[]::new))
                            .requestTimeout(
                                    Duration.ofMillis(Long.parseLong(p.getProperty("ringbase.timeout.ms", "10000"))));
                    String routing = p.getProperty("ringbase.routing", "replica");
                    b.routing(
                            switch (routing) {
                                case "replica" -> Routing.REPLICA;
                                case "random" -> Routing.RANDOM;
                                default ->
                                    throw new IllegalArgumentException(
                                            "ringbase.routing must be replica or random, got '" + routing + "'");
                            });
                    int ack = Integer.parseInt(p.getProperty("ringbase.ack", "0"));
                    int from = Integer.parseInt(p.getProperty("ringbase.from", "0"));
                    if (ack > 0) {
                        b.quorum(ack, from);
                    }
                    shared = b.build();
                } catch (IllegalArgumentException e) {
                    throw new DBException(
                            "ringbase.urls, ringbase.routing, ringbase.ack, ringbase.from: " + e.getMessage(), e);
                }
            }
            users++;
            client = shared;
        }
    }

    @Override
    public void cleanup() {
        synchronized (LOCK) {
            if (--users == 0 && shared != null) {
                shared.close();
                shared = null;
            }
        }
    }

    private static String id(String table, String key) {
        return table + ":" + key;
    }

    @Override
    public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
        try {
            Optional<byte[]> value = client.get(id(table, key));
            if (value.isEmpty()) {
                return Status.NOT_FOUND;
            }
            put(RecordCodec.decode(new ByteArrayInputStream(value.get()), fields), result);
            return Status.OK;
        } catch (RingbaseException | IOException e) {
            return failed("read " + id(table, key), e);
        }
    }

    @Override
    @SuppressWarnings("NonApiType") // YCSB's DB.scan signature
    public Status scan(
            String table,
            String startkey,
            int recordcount,
            Set<String> fields,
            Vector<HashMap<String, ByteIterator>> result) {
        // ';' follows ':': the end of the table
        try (Stream<KeyValue> range = client.scan(id(table, startkey), table + ";")) {
            for (KeyValue kv : (Iterable<KeyValue>) range.limit(recordcount)::iterator) {
                HashMap<String, ByteIterator> row = new HashMap<>();
                put(RecordCodec.decode(new ByteArrayInputStream(kv.value()), fields), row);
                result.add(row);
            }
            return Status.OK;
        } catch (RingbaseException | UncheckedIOException | IOException e) {
            return failed("scan from " + id(table, startkey), e);
        }
    }

    @Override
    public Status update(String table, String key, Map<String, ByteIterator> values) {
        Map<String, ByteIterator> current = new HashMap<>();
        Status read = read(table, key, null, current);
        if (Status.ERROR.equals(read)) {
            return read;
        }
        Map<String, byte[]> merged = new LinkedHashMap<>();
        current.forEach((k, v) -> merged.put(k, v.toArray()));
        values.forEach((k, v) -> merged.put(k, v.toArray()));
        return write(table, key, merged);
    }

    @Override
    public Status insert(String table, String key, Map<String, ByteIterator> values) {
        Map<String, byte[]> fields = new LinkedHashMap<>();
        values.forEach((k, v) -> fields.put(k, v.toArray()));
        return write(table, key, fields);
    }

    private Status write(String table, String key, Map<String, byte[]> fields) {
        try {
            client.put(id(table, key), RecordCodec.encode(fields));
            return Status.OK;
        } catch (RingbaseException e) {
            return failed("write " + id(table, key), e);
        }
    }

    @Override
    public Status delete(String table, String key) {
        try {
            client.delete(id(table, key));
            return Status.OK;
        } catch (RingbaseException e) {
            return failed("delete " + id(table, key), e);
        }
    }

    /** A failed call: {@link Status#ERROR}, printed for the first {@value #ERRORS_SHOWN} of the run. */
    private static Status failed(String what, Exception e) {
        if (ERRORS.incrementAndGet() <= ERRORS_SHOWN) {
            System.err.println("RingbaseHttpDb: " + what + ": " + e.getMessage());
        }
        return Status.ERROR;
    }

    private static void put(Map<String, byte[]> fields, Map<String, ByteIterator> into) {
        fields.forEach((k, v) -> into.put(k, new ByteArrayByteIterator(v)));
    }
}
