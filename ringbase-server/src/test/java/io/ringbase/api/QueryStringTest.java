package io.ringbase.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class QueryStringTest {

    private static String value(String raw, String name) throws BadRequestException {
        return QueryString.parse(raw).string(name);
    }

    @Test
    void decodesPercentEscapesAndPlusAsSpace() throws Exception {
        assertThat(value("id=a%20b+c", "id")).isEqualTo("a b c");
        assertThat(value("id=%2B", "id")).isEqualTo("+");
        assertThat(value("id=a%2fb%2Fc", "id")).isEqualTo("a/b/c");
        assertThat(value("id=%26%3D%3F%23", "id")).isEqualTo("&=?#");
    }

    @Test
    void decodesUtf8() throws Exception {
        assertThat(value("id=%C3%A9t%C3%A9%F0%9F%98%80", "id")).isEqualTo("été😀");
        assertThat(QueryString.parse("id=%E2%82%AC").bytes("id")).isEqualTo("€".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void splitsOnAmpersandAndFirstEquals() throws Exception {
        QueryString q = QueryString.parse("start=a&end=b=c&flag&&x=");
        assertThat(q.string("start")).isEqualTo("a");
        assertThat(q.string("end")).isEqualTo("b=c");
        assertThat(q.string("flag")).isEmpty();
        assertThat(q.string("x")).isEmpty();
        assertThat(q.string("missing")).isNull();
        assertThat(q.names()).containsExactlyInAnyOrder("start", "end", "flag", "x");
    }

    @Test
    void emptyOrNullQueryHasNoParameters() throws Exception {
        assertThat(QueryString.parse(null).names()).isEmpty();
        assertThat(QueryString.parse("").names()).isEmpty();
    }

    @Test
    void rejectsTruncatedOrNonHexEscapes() {
        for (String bad : new String[] {"id=%", "id=%4", "id=a%G1", "id=%1g", "id=%%41", "%zz=1"}) {
            assertThatThrownBy(() -> QueryString.parse(bad)).as(bad).isInstanceOf(BadRequestException.class);
        }
    }

    @Test
    void rejectsInvalidUtf8() {
        for (String bad : new String[] {"id=%FF", "id=%C3", "id=%C3%28", "id=%ED%A0%80", "id=%C0%AF"}) {
            assertThatThrownBy(() -> QueryString.parse(bad)).as(bad).isInstanceOf(BadRequestException.class);
        }
    }

    @Test
    void rejectsDuplicateParameter() {
        assertThatThrownBy(() -> QueryString.parse("id=a&id=b"))
                .isInstanceOf(BadRequestException.class)
                .hasMessageContaining("more than once");
    }

    @Test
    void rejectsRawNonAsciiCharacters() {
        assertThatThrownBy(() -> QueryString.parse("id=\u00e9")).isInstanceOf(BadRequestException.class);
    }
}
