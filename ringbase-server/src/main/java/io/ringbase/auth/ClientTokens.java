package io.ringbase.auth;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The client tokens of a token file ({@code serve --token-file}): bearer tokens (RFC 6750) and what each
 * grants ({@link TokenGrant}). Tokens are kept only as SHA-256 digests, and a presented token is found by
 * its digest, so neither the file's literal tokens nor the presented ones are held as strings after
 * parsing. Immutable and thread-safe; a reload makes a new one.
 *
 * <p>The file is UTF-8 text, one token a line, fields separated by spaces or tabs; {@code #} starts a
 * comment line and blank lines are skipped (docs/operations.md, "Client tokens"):
 * <pre>
 * name  token  permissions  [prefix]
 * </pre>
 * <ul>
 *   <li>name: 1 to 64 of {@code A-Z a-z 0-9 . _ -}, unique; what logs call the token;</li>
 *   <li>token: the bearer token itself, 16 to 256 of RFC 6750's token characters
 *       ({@code A-Z a-z 0-9 - . _ ~ + /}, then {@code =} padding), or {@code sha256:} and the 64 hex
 *       digits of its SHA-256 digest, so the file need not hold the token; unique;</li>
 *   <li>permissions: a comma-separated list of {@code read}, {@code write}, {@code admin},
 *       {@code metrics} ({@link Permission});</li>
 *   <li>prefix: optional; the token's data requests are limited to keys starting with it,
 *       percent-encoded UTF-8 as keys in a query ({@code %2F} for {@code /}, {@code %20} for a space).</li>
 * </ul>
 */
public final class ClientTokens {

    /** No tokens configured: the API is open ({@link #enabled()} is false). */
    public static final ClientTokens NONE = new ClientTokens(Map.of(), false);

    /** Fewest characters of a literal token. */
    public static final int MIN_TOKEN_CHARS = 16;

    /** Most characters of a literal token. */
    public static final int MAX_TOKEN_CHARS = 256;

    private static final String SHA256_PREFIX = "sha256:";
    private static final int MAX_NAME_CHARS = 64;

    private final Map<String, TokenGrant> byDigest; // lower-case hex SHA-256 of the token -> grant
    private final boolean enabled;

    private ClientTokens(Map<String, TokenGrant> byDigest, boolean enabled) {
        this.byDigest = Map.copyOf(byDigest);
        this.enabled = enabled;
    }

    /** Whether tokens are configured: requests must then carry one. */
    public boolean enabled() {
        return enabled;
    }

    /** How many tokens there are. */
    public int size() {
        return byDigest.size();
    }

    /** The grants, in no particular order (for logs: names and permissions, never tokens). */
    public List<TokenGrant> grants() {
        return List.copyOf(byDigest.values());
    }

    /**
     * The grant of the token in an {@code Authorization} header value ({@code Bearer <token>}, the scheme
     * in any case), or {@code null} if the header is missing, not a bearer token or not a known token.
     */
    public @Nullable TokenGrant authorize(@Nullable String authorization) {
        if (authorization == null || authorization.length() < 7) {
            return null;
        }
        if (!authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return null;
        }
        String token = authorization.substring(7).strip();
        if (token.isEmpty() || token.length() > MAX_TOKEN_CHARS) {
            return null;
        }
        return byDigest.get(digestHex(token));
    }

    /**
     * Parses the text of a token file.
     *
     * @throws TokenFileException naming the first bad line (never quoting a token), or line 0 if the
     *                            file has no token
     */
    public static ClientTokens parse(String text) throws TokenFileException {
        Map<String, TokenGrant> byDigest = new HashMap<>();
        Set<String> names = new HashSet<>();
        String[] lines = text.split("\r?\n", -1);
        for (int i = 0; i < lines.length; i++) {
            int lineNo = i + 1;
            String line = lines[i].strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.split("[ \t]+");
            if (f.length < 3 || f.length > 4) {
                throw new TokenFileException(
                        lineNo, "expected 3 or 4 fields (name token permissions [prefix]), found " + f.length);
            }
            String name = f[0];
            if (!validName(name)) {
                throw new TokenFileException(
                        lineNo, "a name is 1 to " + MAX_NAME_CHARS + " of A-Z a-z 0-9 . _ - (the first field)");
            }
            if (!names.add(name)) {
                throw new TokenFileException(lineNo, "name '" + name + "' appears twice");
            }
            String digest = tokenDigest(lineNo, f[1]);
            Set<Permission> permissions = permissions(lineNo, f[2]);
            byte[] prefix = f.length == 4 ? prefix(lineNo, f[3]) : null;
            if (byDigest.putIfAbsent(digest, new TokenGrant(name, permissions, prefix)) != null) {
                throw new TokenFileException(
                        lineNo,
                        "token of '" + name + "' is also the token of '"
                                + byDigest.get(digest).name() + "'");
            }
        }
        if (byDigest.isEmpty()) {
            throw new TokenFileException(0, "no token in the file (a token file that refuses everyone is a mistake)");
        }
        return new ClientTokens(byDigest, true);
    }

    private static boolean validName(String name) {
        if (name.isEmpty() || name.length() > MAX_NAME_CHARS) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!(Character.isLetterOrDigit(c) && c < 128) && c != '.' && c != '_' && c != '-') {
                return false;
            }
        }
        return true;
    }

    private static String tokenDigest(int lineNo, String field) throws TokenFileException {
        if (field.startsWith(SHA256_PREFIX)) {
            String hex = field.substring(SHA256_PREFIX.length());
            if (hex.length() != 64 || !hex.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
                throw new TokenFileException(lineNo, "sha256: must be followed by 64 hex digits");
            }
            return hex.toLowerCase(java.util.Locale.ROOT);
        }
        if (field.length() < MIN_TOKEN_CHARS || field.length() > MAX_TOKEN_CHARS) {
            throw new TokenFileException(
                    lineNo,
                    "a token is " + MIN_TOKEN_CHARS + " to " + MAX_TOKEN_CHARS + " characters, this one "
                            + field.length() + " (e.g. `head -c 32 /dev/urandom | base64`)");
        }
        if (!validToken(field)) {
            throw new TokenFileException(
                    lineNo, "a token holds only A-Z a-z 0-9 - . _ ~ + / and trailing = (RFC 6750)");
        }
        return digestHex(field);
    }

    /** RFC 6750 §2.1 b64token: 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=". */
    private static boolean validToken(String t) {
        int end = t.length();
        while (end > 0 && t.charAt(end - 1) == '=') {
            end--;
        }
        if (end == 0) {
            return false;
        }
        for (int i = 0; i < end; i++) {
            char c = t.charAt(i);
            boolean ok = (c >= 'A' && c <= 'Z')
                    || (c >= 'a' && c <= 'z')
                    || (c >= '0' && c <= '9')
                    || c == '-'
                    || c == '.'
                    || c == '_'
                    || c == '~'
                    || c == '+'
                    || c == '/';
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    private static Set<Permission> permissions(int lineNo, String field) throws TokenFileException {
        Set<Permission> out = EnumSet.noneOf(Permission.class);
        for (String name : field.split(",", -1)) {
            Permission p = Permission.parse(name);
            if (p == null) {
                // quoted only when short: a long field may be a token written in the wrong column
                String shown = name.length() < MIN_TOKEN_CHARS ? " '" + name + "'" : "";
                throw new TokenFileException(
                        lineNo,
                        "unknown permission" + shown + " (permissions: read, write, admin, metrics, by commas)");
            }
            out.add(p);
        }
        return out;
    }

    private static byte[] prefix(int lineNo, String field) throws TokenFileException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(field.length());
        for (int i = 0; i < field.length(); i++) {
            char c = field.charAt(i);
            if (c == '%') {
                int hi = i + 2 < field.length() ? Character.digit(field.charAt(i + 1), 16) : -1;
                int lo = hi >= 0 ? Character.digit(field.charAt(i + 2), 16) : -1;
                if (lo < 0) {
                    throw new TokenFileException(lineNo, "bad percent encoding in the prefix at character " + (i + 1));
                }
                out.write(hi * 16 + lo);
                i += 2;
            } else if (c < 0x21 || c > 0x7E) {
                throw new TokenFileException(lineNo, "the prefix must be percent-encoded ASCII");
            } else {
                out.write(c);
            }
        }
        return out.toByteArray();
    }

    /** The lower-case hex SHA-256 of {@code token}'s UTF-8 bytes. */
    public static String digestHex(String token) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            return HexFormat.of().formatHex(sha.digest(token.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 unavailable", e);
        }
    }
}
