package io.ringbase.status;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The little JSON (RFC 8259) the status endpoint, the status page and {@code ringbase admin} need:
 * {@link #quote} to write a string literal, {@link #parse} to read a document into maps, lists,
 * strings, doubles, booleans and {@code null}. Not a general library: no streaming, documents of a few
 * kilobytes.
 */
public final class Json {

    private Json() {
    }

    /** Appends {@code s} as a JSON string literal, or {@code null}. */
    public static StringBuilder quote(StringBuilder out, String s) {
        if (s == null) {
            return out.append("null");
        }
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"');
    }

    /**
     * Parses one JSON document: objects become {@code Map<String, Object>} (in document order), arrays
     * {@code List<Object>}, numbers {@code Double}.
     *
     * @throws IllegalArgumentException naming the offset of the first error
     */
    public static Object parse(String text) {
        Parser p = new Parser(text);
        Object v = p.value();
        p.skipSpace();
        if (p.at < text.length()) {
            throw p.error("trailing characters");
        }
        return v;
    }

    /** The object at {@code path} (keys, each into an object) in a parsed document, or {@code null}. */
    @SuppressWarnings("unchecked")
    public static Object get(Object doc, String... path) {
        Object v = doc;
        for (String key : path) {
            if (!(v instanceof Map<?, ?> m)) {
                return null;
            }
            v = ((Map<String, Object>) m).get(key);
        }
        return v;
    }

    /** {@link #get} as a number ({@code NaN} if absent or not a number). */
    public static double number(Object doc, String... path) {
        return get(doc, path) instanceof Double d ? d : Double.NaN;
    }

    /** {@link #get} as a string ({@code null} if absent or not a string). */
    public static String string(Object doc, String... path) {
        return get(doc, path) instanceof String s ? s : null;
    }

    private static final class Parser {
        private final String s;
        private int at;

        Parser(String s) {
            this.s = s;
        }

        IllegalArgumentException error(String what) {
            return new IllegalArgumentException("bad JSON at offset " + at + ": " + what);
        }

        void skipSpace() {
            while (at < s.length() && " \t\r\n".indexOf(s.charAt(at)) >= 0) {
                at++;
            }
        }

        Object value() {
            skipSpace();
            if (at >= s.length()) {
                throw error("unexpected end");
            }
            char c = s.charAt(at);
            return switch (c) {
                case '{' -> object();
                case '[' -> array();
                case '"' -> string();
                case 't' -> literal("true", Boolean.TRUE);
                case 'f' -> literal("false", Boolean.FALSE);
                case 'n' -> literal("null", null);
                default -> number();
            };
        }

        Object literal(String word, Object value) {
            if (!s.startsWith(word, at)) {
                throw error("expected " + word);
            }
            at += word.length();
            return value;
        }

        Map<String, Object> object() {
            Map<String, Object> out = new LinkedHashMap<>();
            at++;
            skipSpace();
            if (at < s.length() && s.charAt(at) == '}') {
                at++;
                return out;
            }
            while (true) {
                skipSpace();
                if (at >= s.length() || s.charAt(at) != '"') {
                    throw error("expected a key");
                }
                String key = string();
                skipSpace();
                expect(':');
                out.put(key, value());
                skipSpace();
                if (at < s.length() && s.charAt(at) == ',') {
                    at++;
                    continue;
                }
                expect('}');
                return out;
            }
        }

        List<Object> array() {
            List<Object> out = new ArrayList<>();
            at++;
            skipSpace();
            if (at < s.length() && s.charAt(at) == ']') {
                at++;
                return out;
            }
            while (true) {
                out.add(value());
                skipSpace();
                if (at < s.length() && s.charAt(at) == ',') {
                    at++;
                    continue;
                }
                expect(']');
                return out;
            }
        }

        void expect(char c) {
            if (at >= s.length() || s.charAt(at) != c) {
                throw error("expected '" + c + "'");
            }
            at++;
        }

        String string() {
            at++; // the opening quote
            StringBuilder out = new StringBuilder();
            while (true) {
                if (at >= s.length()) {
                    throw error("unterminated string");
                }
                char c = s.charAt(at++);
                if (c == '"') {
                    return out.toString();
                }
                if (c != '\\') {
                    out.append(c);
                    continue;
                }
                if (at >= s.length()) {
                    throw error("unterminated escape");
                }
                char e = s.charAt(at++);
                switch (e) {
                    case '"', '\\', '/' -> out.append(e);
                    case 'b' -> out.append('\b');
                    case 'f' -> out.append('\f');
                    case 'n' -> out.append('\n');
                    case 'r' -> out.append('\r');
                    case 't' -> out.append('\t');
                    case 'u' -> {
                        if (at + 4 > s.length()) {
                            throw error("short \\u escape");
                        }
                        out.append((char) Integer.parseInt(s, at, at + 4, 16));
                        at += 4;
                    }
                    default -> throw error("bad escape \\" + e);
                }
            }
        }

        Double number() {
            int start = at;
            while (at < s.length() && "+-0123456789.eE".indexOf(s.charAt(at)) >= 0) {
                at++;
            }
            if (start == at) {
                throw error("unexpected character '" + s.charAt(at) + "'");
            }
            try {
                return Double.parseDouble(s.substring(start, at));
            } catch (NumberFormatException e) {
                throw error("bad number");
            }
        }
    }
}
