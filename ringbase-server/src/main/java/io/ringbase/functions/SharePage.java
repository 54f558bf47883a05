package io.ringbase.functions;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.ringbase.storage.Entry;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The body of {@code POST /internal/v0/process-share} and of its answer (docs/http-api.md, "Process
 * share"): JSON objects, version {@value #VERSION}, keys and values in base64. JSON rather than a binary
 * frame: a page is a few hundred keys, the function's calls cost far more than its encoding, and the
 * object can grow fields a reader of an older version ignores. No checksum of its own: it travels over the
 * internal HTTP connection, whose requests are signed.
 */
public final class SharePage {

    /** The version both objects carry in {@code "v"}; a reader refuses another. */
    public static final int VERSION = 1;

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Base64.Encoder B64 = Base64.getEncoder();
    private static final Base64.Decoder UNB64 = Base64.getDecoder();

    private SharePage() {}

    /**
     * Run one page of a share: the first {@code maxKeys} keys of {@code [from, end)} in the share
     * {@code path} of the job's assignment.
     *
     * @param job     the coordinator's job id (for logs)
     * @param from    the first key the page may process (inclusive)
     * @param end     the job's end (exclusive), or {@code null}: to the last key
     * @param down    the nodes the coordinator believed down when the job started
     * @param path    the share: the nodes that had it in turn, the one asked last
     * @param maxKeys the most keys the page processes, at least 1
     * @param module  the hash of the function's module the coordinator loaded: a node that loads another
     *                (the function was replaced meanwhile) refuses the page
     * @param epoch   the coordinator's placement epoch: a node at another refuses the page, whose shares
     *                it would compute from another ring
     * @param token   the coordinator's random name for the job, so that two coordinators' jobs of the same
     *                id never share a scan kept open between pages ({@link ShareScans}); empty from a
     *                coordinator of an older version
     */
    public record Request(
            String job,
            String function,
            ProcessMode mode,
            OnError onError,
            byte[] from,
            byte @Nullable [] end,
            Set<String> down,
            List<String> path,
            int maxKeys,
            String module,
            long epoch,
            String token) {

        /** A request without a token. */
        public Request(
                String job,
                String function,
                ProcessMode mode,
                OnError onError,
                byte[] from,
                byte @Nullable [] end,
                Set<String> down,
                List<String> path,
                int maxKeys,
                String module,
                long epoch) {
            this(job, function, mode, onError, from, end, down, path, maxKeys, module, epoch, "");
        }

        /** Checks the page size and the path. */
        public Request {
            if (maxKeys < 1) {
                throw new IllegalArgumentException("maxKeys must be at least 1, got " + maxKeys);
            }
            if (path.isEmpty()) {
                throw new IllegalArgumentException("a share's path names at least one node");
            }
            down = Set.copyOf(down);
            path = List.copyOf(path);
        }

        /** The JSON object. */
        public byte[] encode() {
            ObjectNode o = JSON.createObjectNode();
            o.put("v", VERSION);
            o.put("job", job);
            o.put("fn", function);
            o.put("mode", mode.label());
            o.put("onError", onError.name().toLowerCase(java.util.Locale.ROOT));
            o.put("from", B64.encodeToString(from));
            if (end != null) {
                o.put("end", B64.encodeToString(end));
            }
            down.stream().sorted().forEach(o.putArray("down")::add);
            ArrayNode p = o.putArray("path");
            path.forEach(p::add);
            o.put("maxKeys", maxKeys);
            o.put("module", module);
            o.put("epoch", epoch);
            if (!token.isEmpty()) {
                o.put("token", token);
            }
            return bytes(o);
        }

        /**
         * The request in {@code body}.
         *
         * @throws IllegalArgumentException if it is not one of this version, saying what is wrong
         */
        public static Request decode(byte[] body) {
            JsonNode o = object(body);
            return new Request(
                    text(o, "job"),
                    text(o, "fn"),
                    ProcessMode.parse(text(o, "mode")),
                    OnError.parse(text(o, "onError")),
                    UNB64.decode(text(o, "from")),
                    o.hasNonNull("end") ? UNB64.decode(text(o, "end")) : null,
                    new LinkedHashSet<>(strings(o, "down")),
                    strings(o, "path"),
                    o.path("maxKeys").asInt(0),
                    text(o, "module"),
                    o.path("epoch").asLong(-1),
                    o.path("token").asText(""));
        }
    }

    /**
     * What one page did. The counts are of the page alone; the coordinator adds them up.
     *
     * @param state      how the page ended: {@code done} (its keys, or the share, ran out), {@code stopped}
     *                   (a call failed with {@code onError=stop}) or {@code cancelled}
     * @param more       whether the share may hold keys after {@code cursor} (the page was full)
     * @param cursor     the last key the page processed, or {@code null} if none
     * @param firstErrors the first failures of the page
     * @param partial    reduce: the page's partials combined, or {@code null} if none
     * @param records    map: the emitted records, in the order of the keys that emitted them
     */
    public record Reply(
            String state,
            boolean more,
            byte @Nullable [] cursor,
            long keysSeen,
            long recordsOut,
            long errors,
            long written,
            long retried,
            long resumed,
            List<String> firstErrors,
            byte @Nullable [] partial,
            List<Entry> records) {

        /**
         * The JSON object, written field by field: the records are most of it, and their base64 goes
         * straight from the bytes to the output, without a string between.
         */
        public byte[] encode() {
            long size = 256;
            for (Entry x : records) {
                size += 8 + (x.key().length + x.value().length) * 4L / 3;
            }
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream((int) Math.min(size, 1 << 26));
            try (JsonGenerator g = JSON.getFactory().createGenerator(out)) {
                g.writeStartObject();
                g.writeNumberField("v", VERSION);
                g.writeStringField("state", state);
                g.writeBooleanField("more", more);
                if (cursor != null) {
                    g.writeFieldName("cursor");
                    g.writeBinary(cursor);
                }
                g.writeNumberField("keysSeen", keysSeen);
                g.writeNumberField("recordsOut", recordsOut);
                g.writeNumberField("errors", errors);
                g.writeNumberField("written", written);
                g.writeNumberField("retried", retried);
                g.writeNumberField("resumed", resumed);
                g.writeArrayFieldStart("firstErrors");
                for (String e : firstErrors) {
                    g.writeString(e);
                }
                g.writeEndArray();
                if (partial != null) {
                    g.writeFieldName("partial");
                    g.writeBinary(partial);
                }
                g.writeArrayFieldStart("records");
                for (Entry x : records) {
                    g.writeStartArray();
                    g.writeBinary(x.key());
                    g.writeBinary(x.value());
                    g.writeEndArray();
                }
                g.writeEndArray();
                g.writeEndObject();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            return out.toByteArray();
        }

        /**
         * The reply in {@code body}, read token by token (fields in any order, unknown ones skipped).
         *
         * @throws IllegalArgumentException if it is not one of this version, or not a reply
         */
        public static Reply decode(byte[] body) {
            int v = -1;
            String state = null;
            boolean more = false;
            byte[] cursor = null;
            byte[] partial = null;
            long[] counts = new long[6];
            List<String> firstErrors = new ArrayList<>();
            List<Entry> records = new ArrayList<>();
            try (JsonParser p = JSON.getFactory().createParser(body)) {
                if (p.nextToken() != JsonToken.START_OBJECT) {
                    throw new IllegalArgumentException("not a JSON object");
                }
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String field = p.currentName();
                    JsonToken t = p.nextToken();
                    switch (field) {
                        case "v" -> v = t == JsonToken.VALUE_NUMBER_INT ? p.getIntValue() : -1;
                        case "state" -> state = t == JsonToken.VALUE_STRING ? p.getText() : null;
                        case "more" -> more = t == JsonToken.VALUE_TRUE;
                        case "cursor" -> cursor = t == JsonToken.VALUE_NULL ? null : p.getBinaryValue();
                        case "partial" -> partial = t == JsonToken.VALUE_NULL ? null : p.getBinaryValue();
                        case "keysSeen" -> counts[0] = p.getValueAsLong();
                        case "recordsOut" -> counts[1] = p.getValueAsLong();
                        case "errors" -> counts[2] = p.getValueAsLong();
                        case "written" -> counts[3] = p.getValueAsLong();
                        case "retried" -> counts[4] = p.getValueAsLong();
                        case "resumed" -> counts[5] = p.getValueAsLong();
                        case "firstErrors" -> {
                            expect(t, JsonToken.START_ARRAY, field);
                            while (p.nextToken() != JsonToken.END_ARRAY) {
                                firstErrors.add(p.getValueAsString(""));
                            }
                        }
                        case "records" -> {
                            expect(t, JsonToken.START_ARRAY, field);
                            while (p.nextToken() == JsonToken.START_ARRAY) {
                                p.nextToken();
                                byte[] key = p.getBinaryValue();
                                p.nextToken();
                                byte[] value = p.getBinaryValue();
                                while (p.nextToken() != JsonToken.END_ARRAY) {
                                    p.skipChildren(); // a pair never has more; a later version may add
                                }
                                records.add(Entry.value(key, 0, value));
                            }
                        }
                        default -> p.skipChildren();
                    }
                }
            } catch (IOException e) {
                throw new IllegalArgumentException("not a share page reply: " + e.getMessage(), e);
            }
            if (v != VERSION) {
                throw new IllegalArgumentException("version " + v + ", this node reads " + VERSION);
            }
            if (state == null) {
                throw new IllegalArgumentException("missing text field 'state'");
            }
            return new Reply(
                    state,
                    more,
                    cursor,
                    counts[0],
                    counts[1],
                    counts[2],
                    counts[3],
                    counts[4],
                    counts[5],
                    firstErrors,
                    partial,
                    records);
        }
    }

    private static void expect(JsonToken t, JsonToken wanted, String field) {
        if (t != wanted) {
            throw new IllegalArgumentException("field '" + field + "' is not an array");
        }
    }

    private static byte[] bytes(ObjectNode o) {
        try {
            return JSON.writeValueAsBytes(o);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static JsonNode object(byte[] body) {
        JsonNode o;
        try {
            o = JSON.readTree(body);
        } catch (IOException e) {
            throw new IllegalArgumentException("not JSON: " + e.getMessage(), e);
        }
        if (o == null || !o.isObject()) {
            throw new IllegalArgumentException("not a JSON object");
        }
        if (o.path("v").asInt(-1) != VERSION) {
            throw new IllegalArgumentException("version " + o.path("v") + ", this node reads " + VERSION);
        }
        return o;
    }

    private static String text(JsonNode o, String field) {
        JsonNode v = o.get(field);
        if (v == null || !v.isTextual()) {
            throw new IllegalArgumentException("missing text field '" + field + "'");
        }
        return v.asText();
    }

    private static List<String> strings(JsonNode o, String field) {
        List<String> out = new ArrayList<>();
        for (JsonNode s : o.path(field)) {
            out.add(s.asText());
        }
        return out;
    }
}
