package io.ringbase.functions;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * A {@code map} job's NDJSON response, parsed: its records (key and value as UTF-8) and the summary of
 * its last line (empty key, the summary's JSON as value).
 */
public record ProcessOutput(List<String[]> records, JsonNode summary) {

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * Parses {@code body}.
     *
     * @throws IllegalStateException if the last line is not a summary (the response was cut)
     */
    public static ProcessOutput parse(byte[] body) throws IOException {
        List<String[]> records = new ArrayList<>();
        JsonNode summary = null;
        for (String line : new String(body, StandardCharsets.UTF_8).split("\n")) {
            if (line.isEmpty()) {
                continue;
            }
            if (summary != null) {
                throw new IllegalStateException("a line after the summary: " + line);
            }
            JsonNode node = JSON.readTree(line);
            byte[] key = Base64.getDecoder().decode(node.get("key").asText());
            byte[] value = Base64.getDecoder().decode(node.get("value").asText());
            if (key.length == 0) {
                summary = JSON.readTree(value);
            } else {
                records.add(
                        new String[] {new String(key, StandardCharsets.UTF_8), new String(value, StandardCharsets.UTF_8)
                        });
            }
        }
        if (summary == null) {
            throw new IllegalStateException("no summary line: the response was cut");
        }
        return new ProcessOutput(records, summary);
    }
}
