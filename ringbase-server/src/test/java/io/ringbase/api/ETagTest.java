package io.ringbase.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.kv.Condition;
import org.junit.jupiter.api.Test;

/** The entity-tag form of a version and the preconditions of a write (docs/http-api.md). */
class ETagTest {

    @Test
    void aVersionIsSixteenLowerCaseHexDigitsInQuotesAndParsesBack() throws Exception {
        assertThat(ETag.of(0x1a2b3c4d5e6f7L)).isEqualTo("\"0001a2b3c4d5e6f7\"");
        assertThat(ETag.of(0)).isEqualTo("\"0000000000000000\"");
        for (long v : new long[] {0, 1, 0x7fffffffffffffffL, -1, 0x00dead00beef0001L}) {
            assertThat(ETag.parse(ETag.of(v))).isEqualTo(v);
        }
        assertThat(ETag.parse("\"0001A2B3C4D5E6F7\"")).isEqualTo(0x1a2b3c4d5e6f7L);
    }

    @Test
    void headersMakeTheirConditions() throws Exception {
        assertThat(ETag.condition(null, null)).isNull();
        assertThat(ETag.condition("\"0000000000000010\"", null)).isEqualTo(new Condition.IfMatch(16));
        assertThat(ETag.condition(" * ", null)).isEqualTo(new Condition.IfPresent());
        assertThat(ETag.condition(null, "*")).isEqualTo(new Condition.IfAbsent());
    }

    @Test
    void malformedPreconditionsAreBadRequestsNamingTheValue() {
        assertThatThrownBy(() -> ETag.condition("W/\"0000000000000010\"", null))
                .isInstanceOf(BadRequestException.class)
                .hasMessageContaining("strong");
        assertThatThrownBy(() -> ETag.condition("\"10\"", null))
                .isInstanceOf(BadRequestException.class)
                .hasMessageContaining("'\"10\"'");
        assertThatThrownBy(() -> ETag.condition("\"000000000000001g\"", null)).isInstanceOf(BadRequestException.class);
        assertThatThrownBy(() -> ETag.condition("\"0000000000000010\", \"0000000000000011\"", null))
                .isInstanceOf(BadRequestException.class);
        assertThatThrownBy(() -> ETag.condition(null, "\"0000000000000010\""))
                .isInstanceOf(BadRequestException.class)
                .hasMessageContaining("must be *");
        assertThatThrownBy(() -> ETag.condition("*", "*"))
                .isInstanceOf(BadRequestException.class)
                .hasMessageContaining("not both");
    }
}
