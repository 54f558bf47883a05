package io.ringbase.functions;

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

        /** The JSON object. */
        public byte[] encode() {
            ObjectNode o = JSON.createObjectNode();
            o.put("v", VERSION);
            o.put("state", state);
            o.put("more", more);
            if (cursor != null) {
                o.put("cursor", B64.encodeToString(cursor));
            }
            o.put("keysSeen", keysSeen);
            o.put("recordsOut", recordsOut);
            o.put("errors", errors);
            o.put("written", written);
            o.put("retried", retried);
            o.put("resumed", resumed);
            ArrayNode e = o.putArray("firstErrors");
            firstErrors.forEach(e::add);
            if (partial != null) {
                o.put("partial", B64.encodeToString(partial));
            }
            ArrayNode r = o.putArray("records");
            for (Entry x : records) {
                r.addArray().add(B64.encodeToString(x.key())).add(B64.encodeToString(x.value()));
            }
            return bytes(o);
        }

        /**
         * The reply in {@code body}.
         *
         * @throws IllegalArgumentException if it is not one of this version
         */
        public static Reply decode(byte[] body) {
            JsonNode o = object(body);
            List<Entry> records = new ArrayList<>();
            for (JsonNode r : o.path("records")) {
                records.add(Entry.value(
                        UNB64.decode(r.path(0).asText()),
                        0,
                        UNB64.decode(r.path(1).asText())));
            }
            return new Reply(
                    text(o, "state"),
                    o.path("more").asBoolean(),
                    o.hasNonNull("cursor") ? UNB64.decode(text(o, "cursor")) : null,
                    o.path("keysSeen").asLong(),
                    o.path("recordsOut").asLong(),
                    o.path("errors").asLong(),
                    o.path("written").asLong(),
                    o.path("retried").asLong(),
                    o.path("resumed").asLong(),
                    strings(o, "firstErrors"),
                    o.hasNonNull("partial") ? UNB64.decode(text(o, "partial")) : null,
                    records);
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
