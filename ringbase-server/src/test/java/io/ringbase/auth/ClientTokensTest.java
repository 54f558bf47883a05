package io.ringbase.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The token file's format: what parses, what each bad line is refused for, and what a token grants. */
class ClientTokensTest {

    static final String APP = "app-token-0123456789abcdef";
    static final String OPS = "ops-token-0123456789abcdef";

    static final String FILE = """
            # name  token  permissions  [prefix]
            app   %s   read,write   user%%2F

            ops	sha256:%s	admin,metrics
            """.formatted(APP, ClientTokens.digestHex(OPS));

    @Test
    void aFileOfTwoTokensGrantsWhatEachLineSays() throws Exception {
        ClientTokens tokens = ClientTokens.parse(FILE);
        assertThat(tokens.enabled()).isTrue();
        assertThat(tokens.size()).isEqualTo(2);
        TokenGrant app = tokens.authorize("Bearer " + APP);
        assertThat(app).isNotNull();
        assertThat(app.name()).isEqualTo("app");
        assertThat(app.permissions()).isEqualTo(Set.of(Permission.READ, Permission.WRITE));
        assertThat(app.prefix()).isEqualTo("user/".getBytes(StandardCharsets.UTF_8));
        TokenGrant ops = tokens.authorize("bearer " + OPS); // the scheme in any case (RFC 9110 §11.1)
        assertThat(ops).isNotNull();
        assertThat(ops.name()).isEqualTo("ops");
        assertThat(ops.prefix()).isNull();
    }

    @Test
    void unknownMissingAndNonBearerCredentialsFindNothing() throws Exception {
        ClientTokens tokens = ClientTokens.parse(FILE);
        assertThat(tokens.authorize(null)).isNull();
        assertThat(tokens.authorize("Bearer ")).isNull();
        assertThat(tokens.authorize("Bearer " + APP + "x")).isNull();
        assertThat(tokens.authorize("Basic " + APP)).isNull();
        assertThat(tokens.authorize(APP)).isNull();
        // the digest written in the file is not itself a token
        assertThat(tokens.authorize("Bearer " + ClientTokens.digestHex(OPS))).isNull();
    }

    @Test
    void aPrefixCoversItsKeysAndOnlyRangesInsideIt() throws Exception {
        TokenGrant app = ClientTokens.parse(FILE).authorize("Bearer " + APP);
        assertThat(app.covers(bytes("user/42"))).isTrue();
        assertThat(app.covers(bytes("user"))).isFalse();
        assertThat(app.covers(bytes("admin/1"))).isFalse();
        assertThat(app.coversRange(bytes("user/"), bytes("user0"))).isTrue(); // "user0" is the first key past it
        assertThat(app.coversRange(bytes("user/a"), bytes("user/b"))).isTrue();
        assertThat(app.coversRange(bytes("user/"), bytes("user1"))).isFalse();
        assertThat(app.coversRange(bytes("user/"), null)).isFalse(); // to the last key
        assertThat(app.coversRange(bytes("use"), bytes("user/z"))).isFalse();
    }

    @Test
    void eachBadLineIsNamedByItsNumberWithoutQuotingTheToken() {
        String secret = "s3cr3t-token-abcdefghij";
        refused("a " + secret + " read extra fields\n", 1, "expected 3 or 4 fields");
        refused("\n\nb@d " + secret + " read\n", 3, "a name is");
        refused("a short read\n", 1, "a token is 16 to 256 characters");
        refused("a " + secret + "! read\n", 1, "RFC 6750");
        refused("a sha256:abc read\n", 1, "64 hex digits");
        refused("a " + secret + " wirte\n", 1, "unknown permission 'wirte'");
        refused("a " + secret + "-x " + secret + "\n", 1, "unknown permission (");
        refused("a " + secret + " read\na " + secret + "x read\n", 2, "name 'a' appears twice");
        refused("a " + secret + " read\nb " + secret + " write\n", 2, "also the token of 'a'");
        refused("a " + secret + " read %zz\n", 1, "bad percent encoding");
        refused("# nothing\n\n", 0, "no token");
        for (String text : new String[] {
            "a " + secret + "-x " + secret + "\n", "a read " + secret + "\n", "a " + secret + " read extra fields\n"
        }) {
            assertThatThrownBy(() -> ClientTokens.parse(text)).message().doesNotContain(secret);
        }
    }

    private static void refused(String text, int line, String reason) {
        assertThatThrownBy(() -> ClientTokens.parse(text))
                .isInstanceOf(TokenFileException.class)
                .hasMessageContaining(reason)
                .satisfies(e -> assertThat(((TokenFileException) e).line()).isEqualTo(line));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
