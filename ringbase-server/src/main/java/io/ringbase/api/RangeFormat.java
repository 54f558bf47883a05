package io.ringbase.api;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * How a range response ({@code GET /v0/entities}) frames its entries, chosen by the request's
 * {@code Accept} header (docs/http-api.md, "GET /v0/entities").
 */
enum RangeFormat {

    /**
     * The default: one HTTP chunk per entry holding {@code key 0x0A value}, content type
     * {@code application/octet-stream}. A {@code \n} in a key is ambiguous once chunk boundaries are lost.
     */
    CHUNKS("application/octet-stream"),

    /**
     * {@code Accept: application/x-ndjson}: one JSON object per entry and line,
     * <code>{"key":"&lt;base64&gt;","value":"&lt;base64&gt;"}\n</code>, both fields in standard base64
     * with padding (RFC 4648 section 4) of the raw bytes, so any byte of a key or value is unambiguous.
     * Still one HTTP chunk per line.
     */
    NDJSON("application/x-ndjson");

    /** The media type that asks for {@link #NDJSON}. */
    static final String NDJSON_TYPE = "application/x-ndjson";

    private static final byte[] KEY_OPEN = "{\"key\":\"".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] VALUE_OPEN = "\",\"value\":\"".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] LINE_CLOSE = "\"}\n".getBytes(StandardCharsets.US_ASCII);

    private final String contentType;

    RangeFormat(String contentType) {
        this.contentType = contentType;
    }

    /** The {@code Content-Type} of a response in this format. */
    String contentType() {
        return contentType;
    }

    /**
     * The format an {@code Accept} header asks for: {@link #NDJSON} if one of its media ranges is
     * {@code application/x-ndjson} (any case, parameters ignored, except {@code q=0}, which refuses it),
     * else {@link #CHUNKS} (also with no header, {@code *}{@code /*}, or only types we do not serve).
     *
     * @param accept the header's value, or {@code null}
     */
    static RangeFormat of(@Nullable String accept) {
        if (accept == null) {
            return CHUNKS;
        }
        for (String range : accept.split(",")) {
            String[] parts = range.split(";");
            if (!parts[0].strip().toLowerCase(Locale.ROOT).equals(NDJSON_TYPE)) {
                continue;
            }
            boolean refused = false;
            for (int i = 1; i < parts.length; i++) {
                String p = parts[i].strip().toLowerCase(Locale.ROOT).replace(" ", "");
                if (p.matches("q=0(\\.0{0,3})?")) {
                    refused = true;
                }
            }
            if (!refused) {
                return NDJSON;
            }
        }
        return CHUNKS;
    }

    /** Bytes of one entry's frame: what {@link #encode} writes. */
    int frameLength(byte[] key, byte[] value) {
        return switch (this) {
            case CHUNKS -> key.length + 1 + value.length;
            case NDJSON ->
                KEY_OPEN.length
                        + base64Length(key.length)
                        + VALUE_OPEN.length
                        + base64Length(value.length)
                        + LINE_CLOSE.length;
        };
    }

    /**
     * One entry's frame, written into {@code out} (which has room for {@link #frameLength}). The NDJSON
     * line is written directly: base64's alphabet needs no JSON escaping, so a JSON library would add
     * only a copy.
     */
    void encode(byte[] key, byte[] value, io.netty.buffer.ByteBuf out) {
        switch (this) {
            case CHUNKS -> out.writeBytes(key).writeByte('\n').writeBytes(value);
            case NDJSON ->
                out.writeBytes(KEY_OPEN)
                        .writeBytes(Base64.getEncoder().encode(key))
                        .writeBytes(VALUE_OPEN)
                        .writeBytes(Base64.getEncoder().encode(value))
                        .writeBytes(LINE_CLOSE);
        }
    }

    private static int base64Length(int bytes) {
        return (bytes + 2) / 3 * 4;
    }
}
