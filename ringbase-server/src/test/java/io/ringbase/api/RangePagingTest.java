package io.ringbase.api;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.testing.IntegrationTest;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code GET /v0/entities?limit=N} on a node alone: pages, the {@code Ringbase-Next-Start} trailer, bad limits. */
@IntegrationTest
class RangePagingTest {

    private ServerFixture http;

    @BeforeEach
    void start() throws Exception {
        http = new ServerFixture(new InMemoryEngine());
        for (int i = 0; i < 250; i++) {
            assertThat(http.put(
                                    "/v0/entity?id=" + ServerFixture.enc("p/" + "%04d".formatted(i)),
                                    ("v" + i).getBytes(UTF_8))
                            .statusCode())
                    .isEqualTo(201);
        }
        assertThat(http.put("/v0/entity?id=q", "outside".getBytes(UTF_8)).statusCode())
                .isEqualTo(201);
    }

    @AfterEach
    void stop() {
        http.close();
    }

    @Test
    void pagesFollowTheTrailerToTheEndWithEveryKeyOnce() throws Exception {
        List<String> keys = new ArrayList<>();
        String start = "p%2F";
        int pages = 0;
        try (RawHttp raw = new RawHttp(http.port)) {
            while (start != null) {
                raw.send("GET /v0/entities?start=" + start + "&end=p0&limit=100 HTTP/1.1\r\nHost: x\r\n\r\n");
                RawHttp.Response r = raw.read();
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.header("trailer")).isEqualToIgnoringCase("Ringbase-Next-Start");
                assertThat(r.chunks().size()).isLessThanOrEqualTo(100);
                for (byte[] chunk : r.chunks()) {
                    String s = new String(chunk, UTF_8);
                    keys.add(s.substring(0, s.indexOf('\n')));
                }
                start = raw.trailers.get("ringbase-next-start");
                pages++;
            }
        }
        assertThat(pages).isEqualTo(3); // 100, 100, 50: the last page is not full, so it has no trailer
        assertThat(keys).hasSize(250).doesNotHaveDuplicates().isSorted();
        assertThat(keys.getFirst()).isEqualTo("p/0000");
        assertThat(keys.getLast()).isEqualTo("p/0249");
    }

    @Test
    void theTrailerIsTheLastKeyAndAZeroBytePercentEncoded() throws Exception {
        try (RawHttp raw = new RawHttp(http.port)) {
            raw.send("GET /v0/entities?start=p&limit=2 HTTP/1.1\r\nHost: x\r\n\r\n");
            RawHttp.Response r = raw.read();
            assertThat(r.chunks()).hasSize(2);
            assertThat(raw.trailers).containsEntry("ringbase-next-start", "p%2F0001%00");
            // without limit: no trailer announced or sent
            raw.send("GET /v0/entities?start=q HTTP/1.1\r\nHost: x\r\n\r\n");
            RawHttp.Response all = raw.read();
            assertThat(all.header("trailer")).isNull();
            assertThat(all.chunks()).hasSize(1);
            assertThat(raw.trailers).isEmpty();
        }
    }

    @Test
    void aLimitMustBeAPositiveInteger() throws Exception {
        for (String bad : List.of("0", "-1", "ten", "99999999999")) {
            var r = http.get("/v0/entities?start=p&limit=" + bad);
            assertThat(r.statusCode()).as(bad).isEqualTo(400);
            assertThat(new String(r.body(), UTF_8)).as(bad).contains("'limit'");
        }
    }
}
