package io.ringbase.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RequestSignerTest {

    static final byte[] SECRET = "a-cluster-secret-of-32-bytes-abc".getBytes(StandardCharsets.UTF_8);
    static final long NOW = 1_763_700_000_000L;
    static final String URI = "/internal/v0/entry?id=6b6579";
    static final byte[] BODY = {1, 2, 3, 4, 5};

    final RequestSigner signer = new RequestSigner(SECRET);

    @Test
    void aSignatureVerifies() {
        String header = signer.sign("PUT", URI, BODY, NOW);
        assertThat(header).startsWith(NOW + ".");
        assertThat(signer.verify("PUT", URI, BODY, header, NOW)).isTrue();
        assertThat(new RequestSigner(SECRET.clone()).verify("PUT", URI, BODY, header, NOW + 1))
                .isTrue();
    }

    @Test
    void anEmptyBodySignsAndVerifies() {
        String header = signer.sign("GET", "/internal/v0/ping", new byte[0], NOW);
        assertThat(signer.verify("GET", "/internal/v0/ping", new byte[0], header, NOW))
                .isTrue();
    }

    @Test
    void tamperingWithMethodUriBodyOrTimestampFails() {
        String header = signer.sign("PUT", URI, BODY, NOW);
        assertThat(signer.verify("GET", URI, BODY, header, NOW)).isFalse();
        assertThat(signer.verify("PUT", URI + "0", BODY, header, NOW)).isFalse();
        assertThat(signer.verify("PUT", "/internal/v0/entry?id=6b6578", BODY, header, NOW))
                .isFalse();
        assertThat(signer.verify("PUT", URI, new byte[] {1, 2, 3, 4, 6}, header, NOW))
                .isFalse();
        assertThat(signer.verify("PUT", URI, new byte[] {1, 2, 3, 4}, header, NOW))
                .isFalse();
        String otherTime = (NOW + 1) + header.substring(header.indexOf('.'));
        assertThat(signer.verify("PUT", URI, BODY, otherTime, NOW)).isFalse();
        char last = header.charAt(header.length() - 1);
        String flipped = header.substring(0, header.length() - 1) + (last == '0' ? '1' : '0');
        assertThat(signer.verify("PUT", URI, BODY, flipped, NOW)).isFalse();
    }

    @Test
    void anotherSecretFails() {
        String header = new RequestSigner("another-secret-of-32-bytes-abcde".getBytes(StandardCharsets.UTF_8))
                .sign("PUT", URI, BODY, NOW);
        assertThat(signer.verify("PUT", URI, BODY, header, NOW)).isFalse();
    }

    @Test
    void signaturesOutsideTheSkewWindowFail() {
        String header = signer.sign("PUT", URI, BODY, NOW);
        assertThat(signer.verify("PUT", URI, BODY, header, NOW + RequestSigner.MAX_SKEW_MS))
                .isTrue();
        assertThat(signer.verify("PUT", URI, BODY, header, NOW - RequestSigner.MAX_SKEW_MS))
                .isTrue();
        assertThat(signer.verify("PUT", URI, BODY, header, NOW + RequestSigner.MAX_SKEW_MS + 1))
                .isFalse();
        assertThat(signer.verify("PUT", URI, BODY, header, NOW - RequestSigner.MAX_SKEW_MS - 1))
                .isFalse();
    }

    @Test
    void malformedHeadersFailWithoutThrowing() {
        for (String bad : new String[] {
            null,
            "",
            ".",
            "abc",
            NOW + "",
            NOW + ".",
            NOW + ".zz",
            "x." + "00".repeat(32),
            ".00",
            NOW + ".0",
            "-" + NOW + ".00",
            NOW + "." + "00".repeat(32)
        }) {
            assertThat(signer.verify("PUT", URI, BODY, bad, NOW))
                    .as("header %s", bad)
                    .isFalse();
        }
    }

    @Test
    void shortSecretsAreRefused() {
        assertThatThrownBy(() -> new RequestSigner(new byte[15]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("16");
        new RequestSigner(new byte[16]);
    }

    @Test
    void withoutASecretNothingIsSignedAndEveryRequestIsAccepted() {
        assertThat(RequestSigner.of(null)).isSameAs(RequestSigner.NONE);
        assertThat(RequestSigner.NONE.signs()).isFalse();
        assertThat(RequestSigner.NONE.verify("PUT", URI, BODY, null, NOW)).isTrue();
        assertThatThrownBy(() -> RequestSigner.NONE.sign("PUT", URI, BODY, NOW))
                .isInstanceOf(IllegalStateException.class);
        assertThat(RequestSigner.of(SECRET).signs()).isTrue();
        assertThat(RequestSigner.of(SECRET).verify("PUT", URI, BODY, null, NOW)).isFalse();
    }
}
