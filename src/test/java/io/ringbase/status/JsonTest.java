package io.ringbase.status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class JsonTest {

    @Test
    void parsesWhatTheStatusEndpointWrites() {
        Object doc = Json.parse("{\"node\":\"http://a:1\",\"n\":-1.5e2,\"ok\":true,\"none\":null,"
                + "\"list\":[1,{\"x\":\"a\\\"b\\u00e9\\n\"}],\"empty\":{}}");
        assertThat(Json.string(doc, "node")).isEqualTo("http://a:1");
        assertThat(Json.number(doc, "n")).isEqualTo(-150.0);
        assertThat(Json.get(doc, "ok")).isEqualTo(true);
        assertThat(Json.get(doc, "none")).isNull();
        assertThat(Json.string(((List<?>) Json.get(doc, "list")).get(1), "x")).isEqualTo("a\"bé\n");
        assertThat(Json.number(doc, "missing")).isNaN();
    }

    @Test
    void quoteRoundTrips() {
        String s = "tab\t quote\" back\\ ctl\u0001 é";
        assertThat(Json.parse(Json.quote(new StringBuilder(), s).toString())).isEqualTo(s);
    }

    @Test
    void malformedDocumentsNameTheOffset() {
        assertThatThrownBy(() -> Json.parse("{\"a\":1,}")).hasMessageContaining("offset 7");
        assertThatThrownBy(() -> Json.parse("[1] x")).hasMessageContaining("trailing");
    }
}
