package io.ringbase.functions;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ringbase.storage.Entry;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The share page's JSON objects, as docs/http-api.md, "Process share request and answer", says. */
@Timeout(30)
class SharePageTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static SharePage.Reply reply(List<Entry> records) {
        return new SharePage.Reply(
                "done", true, "k9".getBytes(UTF_8), 3, 4, 1, 0, 0, 2, List.of("k2: trap"), new byte[] {7, 0}, records);
    }

    @Test
    void aReplyRoundTripsWithEveryField() {
        SplittableRandom random = new SplittableRandom(11);
        List<Entry> records = new java.util.ArrayList<>();
        for (int i = 0; i < 50; i++) {
            byte[] value = new byte[random.nextInt(2000)];
            random.nextBytes(value);
            records.add(Entry.value(("k" + i).getBytes(UTF_8), 0, value));
        }
        SharePage.Reply back = SharePage.Reply.decode(reply(records).encode());
        assertThat(back.state()).isEqualTo("done");
        assertThat(back.more()).isTrue();
        assertThat(back.cursor()).isEqualTo("k9".getBytes(UTF_8));
        assertThat(List.of(
                        back.keysSeen(),
                        back.recordsOut(),
                        back.errors(),
                        back.written(),
                        back.retried(),
                        back.resumed()))
                .containsExactly(3L, 4L, 1L, 0L, 0L, 2L);
        assertThat(back.firstErrors()).containsExactly("k2: trap");
        assertThat(back.partial()).containsExactly(7, 0);
        assertThat(back.records()).hasSize(records.size());
        for (int i = 0; i < records.size(); i++) {
            assertThat(back.records().get(i).key()).isEqualTo(records.get(i).key());
            assertThat(back.records().get(i).value()).isEqualTo(records.get(i).value());
        }
        SharePage.Reply empty = SharePage.Reply.decode(
                new SharePage.Reply("done", false, null, 0, 0, 0, 0, 0, 0, List.of(), null, List.of()).encode());
        assertThat(empty.cursor()).isNull();
        assertThat(empty.partial()).isNull();
        assertThat(empty.records()).isEmpty();
    }

    @Test
    void aReplysBinaryFieldsAreBase64WithPadding() throws Exception {
        byte[] value = {(byte) 0xfb, (byte) 0xff, 0x01, 0x02};
        JsonNode o = JSON.readTree(
                reply(List.of(Entry.value("a".getBytes(UTF_8), 0, value))).encode());
        assertThat(o.get("v").asInt()).isEqualTo(1);
        assertThat(o.get("cursor").asText()).isEqualTo("azk=");
        assertThat(o.get("records").get(0).get(0).asText()).isEqualTo("YQ==");
        assertThat(o.get("records").get(0).get(1).asText())
                .isEqualTo(Base64.getEncoder().encodeToString(value));
    }

    @Test
    void aReplyInAnyFieldOrderWithUnknownFieldsIsRead() {
        String json = "{\"records\":[[\"YQ==\",\"Yg==\"]],\"future\":{\"x\":[1,2]},\"state\":\"stopped\",\"v\":1,"
                + "\"keysSeen\":5,\"firstErrors\":[],\"more\":false}";
        SharePage.Reply r = SharePage.Reply.decode(json.getBytes(UTF_8));
        assertThat(r.state()).isEqualTo("stopped");
        assertThat(r.keysSeen()).isEqualTo(5);
        assertThat(new String(r.records().getFirst().value(), UTF_8)).isEqualTo("b");
    }

    @Test
    void anotherVersionOrNoStateIsRefused() {
        assertThatThrownBy(() -> SharePage.Reply.decode("{\"v\":2,\"state\":\"done\"}".getBytes(UTF_8)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("version 2");
        assertThatThrownBy(() -> SharePage.Reply.decode("{\"v\":1}".getBytes(UTF_8)))
                .hasMessageContaining("state");
        assertThatThrownBy(() -> SharePage.Reply.decode("[1]".getBytes(UTF_8)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SharePage.Reply.decode("{\"v\":1,".getBytes(UTF_8)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aRequestCarriesItsTokenAndAnOlderOneWithoutReadsAsEmpty() {
        SharePage.Request r = new SharePage.Request(
                "7",
                "f",
                ProcessMode.MAP,
                OnError.STOP,
                new byte[] {1},
                null,
                Set.of(),
                List.of("http://a:1"),
                128,
                "h",
                3,
                "abc");
        assertThat(SharePage.Request.decode(r.encode()).token()).isEqualTo("abc");
        SharePage.Request old = new SharePage.Request(
                "7",
                "f",
                ProcessMode.MAP,
                OnError.STOP,
                new byte[] {1},
                null,
                Set.of(),
                List.of("http://a:1"),
                128,
                "h",
                3);
        assertThat(SharePage.Request.decode(old.encode()).token()).isEmpty();
    }
}
