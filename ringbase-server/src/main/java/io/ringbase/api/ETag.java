package io.ringbase.api;

import io.ringbase.api.wire.RawResponses;
import io.ringbase.kv.Condition;
import org.jspecify.annotations.Nullable;

/**
 * Entity tags of the data API (RFC 9110 §8.8.3): the 64-bit version of a key's value (a hybrid logical
 * clock reading) as a strong tag of 16 lower-case hex digits in quotes, e.g. {@code "0001a2b3c4d5e6f7"},
 * and the preconditions a write takes back ({@code If-Match}, {@code If-None-Match: *}, RFC 9110 §13.1).
 * See docs/http-api.md, "Versions and conditional writes".
 */
final class ETag {

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private ETag() {}

    /** The strong entity tag of {@code version}: {@code "} + 16 lower-case hex digits + {@code "}. */
    static String of(long version) {
        char[] out = new char[RawResponses.ETAG_DIGITS + 2];
        out[0] = '"';
        for (int i = 0; i < RawResponses.ETAG_DIGITS; i++) {
            out[1 + i] = HEX[(int) (version >>> (4 * (RawResponses.ETAG_DIGITS - 1 - i))) & 0xF];
        }
        out[out.length - 1] = '"';
        return new String(out);
    }

    /**
     * The condition of a write from its {@code If-Match} and {@code If-None-Match} header values, or
     * {@code null} if it has neither (an unconditional write).
     *
     * @throws BadRequestException if both are given, a tag is weak, malformed or one of a list, or
     *                             {@code If-None-Match} is anything but {@code *}
     */
    static @Nullable Condition condition(@Nullable String ifMatch, @Nullable String ifNoneMatch)
            throws BadRequestException {
        if (ifMatch != null && ifNoneMatch != null) {
            throw new BadRequestException("give If-Match or If-None-Match, not both");
        }
        if (ifNoneMatch != null) {
            if (!ifNoneMatch.strip().equals("*")) {
                throw new BadRequestException(
                        "If-None-Match on a write must be *, got '" + abbreviate(ifNoneMatch) + "'");
            }
            return new Condition.IfAbsent();
        }
        if (ifMatch == null) {
            return null;
        }
        String tag = ifMatch.strip();
        if (tag.equals("*")) {
            return new Condition.IfPresent();
        }
        return new Condition.IfMatch(parse(tag));
    }

    /**
     * The version in a strong entity tag.
     *
     * @throws BadRequestException if {@code tag} is not {@code "} + 16 hex digits + {@code "}
     */
    static long parse(String tag) throws BadRequestException {
        if (tag.startsWith("W/")) {
            throw new BadRequestException("If-Match needs a strong ETag, got the weak '" + abbreviate(tag) + "'");
        }
        if (tag.length() != RawResponses.ETAG_DIGITS + 2
                || tag.charAt(0) != '"'
                || tag.charAt(tag.length() - 1) != '"') {
            throw new BadRequestException(
                    "If-Match must be one ETag of the form \"<16 hex digits>\" or *, got '" + abbreviate(tag) + "'");
        }
        long v = 0;
        for (int i = 1; i <= RawResponses.ETAG_DIGITS; i++) {
            int d = Character.digit(tag.charAt(i), 16);
            if (d < 0) {
                throw new BadRequestException("If-Match must be one ETag of the form \"<16 hex digits>\" or *, got '"
                        + abbreviate(tag) + "'");
            }
            v = (v << 4) | d;
        }
        return v;
    }

    private static String abbreviate(String s) {
        return s.length() <= 64 ? s : s.substring(0, 64) + "...";
    }
}
