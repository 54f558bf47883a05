package io.ringbase.aot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.testing.IntegrationTest;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

@IntegrationTest
class BlockingHttpConnectionTest {

    @Test
    void readsAContentLengthBodyAndKeepsTheConnection() throws Exception {
        try (FakeHttpServer server = new FakeHttpServer(line -> "HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhello");
                BlockingHttpConnection http = new BlockingHttpConnection(server.address())) {
            for (int i = 0; i < 3; i++) {
                BlockingHttpConnection.Answer a = http.send("PUT", "/v0/entity?id=k" + i, new byte[] {1, 2, 3});
                assertThat(a.status()).isEqualTo(200);
                assertThat(new String(a.body(), StandardCharsets.US_ASCII)).isEqualTo("hello");
            }
            assertThat(server.requestLines)
                    .containsExactly(
                            "PUT /v0/entity?id=k0 HTTP/1.1",
                            "PUT /v0/entity?id=k1 HTTP/1.1",
                            "PUT /v0/entity?id=k2 HTTP/1.1");
            assertThat(server.connections).hasValue(1);
        }
    }

    @Test
    void readsAChunkedBodyWithExtensionsAndTrailers() throws Exception {
        String reply = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5\r\nhello\r\n6;name=value\r\n world\r\n0\r\nx-trailer: 1\r\n\r\n";
        try (FakeHttpServer server = new FakeHttpServer(line -> reply);
                BlockingHttpConnection http = new BlockingHttpConnection(server.address())) {
            BlockingHttpConnection.Answer a = http.send("GET", "/v0/entities?start=a", null);
            assertThat(new String(a.body(), StandardCharsets.US_ASCII)).isEqualTo("hello world");
            assertThat(http.send("GET", "/v0/entities?start=b", null).status()).isEqualTo(200);
            assertThat(server.connections).hasValue(1);
        }
    }

    @Test
    void reconnectsAfterTheNodeSaidConnectionClose() throws Exception {
        String reply = "HTTP/1.1 503 Service Unavailable\r\nconnection: close\r\ncontent-length: 0\r\n\r\n";
        try (FakeHttpServer server = new FakeHttpServer(line -> reply);
                BlockingHttpConnection http = new BlockingHttpConnection(server.address())) {
            assertThat(http.send("GET", "/a", null).status()).isEqualTo(503);
            assertThat(http.send("GET", "/b", null).status()).isEqualTo(503);
            assertThat(server.connections).hasValue(2);
        }
    }

    @Test
    void aBodyCutShortIsAnEofNotAShortAnswer() throws Exception {
        try (FakeHttpServer server = new FakeHttpServer(
                        line -> "HTTP/1.1 200 OK\r\ncontent-length: 10\r\nconnection: close\r\n\r\nhel");
                BlockingHttpConnection http = new BlockingHttpConnection(server.address())) {
            assertThatThrownBy(() -> http.send("GET", "/a", null))
                    .isInstanceOf(EOFException.class)
                    .hasMessageContaining("3 bytes into a 10-byte body");
        }
    }

    @Test
    void somethingOtherThanHttp11IsRefused() throws Exception {
        try (FakeHttpServer server = new FakeHttpServer(line -> "HTTP/1.0 200 OK\r\n\r\n");
                BlockingHttpConnection http = new BlockingHttpConnection(server.address())) {
            assertThatThrownBy(() -> http.send("GET", "/a", null))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("not an HTTP/1.1 status line: 'HTTP/1.0 200 OK'");
        }
    }
}
