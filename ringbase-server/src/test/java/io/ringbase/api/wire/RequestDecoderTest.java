package io.ringbase.api.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The request decoder in memory: framing, keep-alive, limits, and what it refuses. */
class RequestDecoderTest {

    static final int BODY_LIMIT = 1000;

    final EmbeddedChannel channel =
            new EmbeddedChannel(new RequestDecoder(200, 300, BODY_LIMIT, List.of("/v0/entity")));
    final List<Object> seen = new ArrayList<>();

    @AfterEach
    void releaseEverything() {
        for (Object o : seen) {
            Request.release(o);
        }
        channel.finishAndReleaseAll();
    }

    private List<Object> feed(String... pieces) {
        for (String p : pieces) {
            channel.writeInbound(Unpooled.copiedBuffer(p, StandardCharsets.ISO_8859_1));
        }
        List<Object> out = new ArrayList<>();
        Object o;
        while ((o = channel.readInbound()) != null) {
            out.add(o);
            seen.add(o);
        }
        return out;
    }

    private static String body(Object o) {
        return ((Request) o).content().toString(StandardCharsets.ISO_8859_1);
    }

    @Test
    void aGetWithoutBodyOnOneConnectionAfterAnother() {
        List<Object> out = feed("GET /v0/entity?id=a HTTP/1.1\r\nHost: x\r\n\r\n"
                + "DELETE /v0/entity?id=b HTTP/1.1\r\nHost: x\r\n\r\n");
        assertThat(out).hasSize(2);
        Request get = (Request) out.get(0);
        assertThat(get.method()).isEqualTo(HttpMethod.GET);
        assertThat(get.uri()).isEqualTo("/v0/entity?id=a");
        assertThat(get.version()).isEqualTo(HttpVersion.HTTP_1_1);
        assertThat(get.keepAlive()).isTrue();
        assertThat(get.content().readableBytes()).isZero();
        assertThat(get.header("host"))
                .as("headers are not kept on the point path")
                .isNull();
        assertThat(((Request) out.get(1)).method()).isEqualTo(HttpMethod.DELETE);
    }

    @Test
    void aBodyByContentLengthArrivingInPieces() {
        assertThat(feed("PUT /v0/entity?id=a HTTP/1.1\r\nHost: x\r\nContent-Le", "ngth: 10\r\n\r\n01234"))
                .isEmpty();
        List<Object> out = feed("56789GET /v0/entity?id=a HTTP/1.1\r\nHost: x\r\n\r\n");
        assertThat(out).hasSize(2);
        assertThat(body(out.get(0))).isEqualTo("0123456789");
    }

    @Test
    void aChunkedBodyWithExtensionsAndTrailers() {
        List<Object> out = feed(
                "PUT /v0/entity?id=a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n",
                "3;ext=1\r\nabc\r\n",
                "A\r\n0123456789\r\n0\r\nX-Trailer: t\r\n\r\n");
        assertThat(out).hasSize(1);
        assertThat(body(out.get(0))).isEqualTo("abc0123456789");
    }

    @Test
    void headersAreKeptOffThePointPath() {
        List<Object> out = feed(
                "POST /internal/v0/batch HTTP/1.1\r\nHost: x\r\nX-Rb-Auth:  sig \r\n" + "content-length: 2\r\n\r\nok");
        Request r = (Request) out.getFirst();
        assertThat(r.header("x-rb-auth")).isEqualTo("sig");
        assertThat(r.header("Content-Length")).isEqualTo("2");
        assertThat(r.method()).isEqualTo(HttpMethod.POST);
        assertThat(body(r)).isEqualTo("ok");
    }

    @Test
    void aPointRequestKeepsOnlyItsPreconditions() {
        List<Object> out = feed("PUT /v0/entity?id=a HTTP/1.1\r\nHost: x\r\nIf-Match: \"0000000000000001\"\r\n"
                + "content-length: 1\r\n\r\nv"
                + "DELETE /v0/entity?id=a HTTP/1.1\r\nHost: x\r\nif-none-match:  * \r\n\r\n"
                + "PUT /v0/entity?id=a HTTP/1.1\r\nHost: x\r\ncontent-length: 1\r\n\r\nw");
        Request conditional = (Request) out.get(0);
        assertThat(conditional.header("if-match")).isEqualTo("\"0000000000000001\"");
        assertThat(conditional.header("host")).isNull();
        assertThat(body(conditional)).isEqualTo("v");
        assertThat(((Request) out.get(1)).header("If-None-Match")).isEqualTo("*");
        Request plain = (Request) out.get(2);
        assertThat(plain.header("if-match")).isNull();
        assertThat(plain.header("if-none-match")).isNull();
    }

    @Test
    void aPointRequestKeepsAContentTypeButTheDefaultOne() {
        List<Object> out =
                feed("PUT /v0/entity?id=a HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain; charset=utf-8 \r\n"
                        + "content-length: 1\r\n\r\nv"
                        + "PUT /v0/entity?id=a HTTP/1.1\r\nHost: x\r\ncontent-type: Application/Octet-Stream\r\n"
                        + "content-length: 1\r\n\r\nw");
        Request typed = (Request) out.get(0);
        assertThat(typed.header("content-type")).isEqualTo("text/plain; charset=utf-8");
        assertThat(typed.header("host")).isNull();
        // the default type is not kept: an untyped PUT stays on the allocation-free path
        assertThat(((Request) out.get(1)).header("content-type")).isNull();
    }

    @Test
    void keepAliveFollowsTheVersionAndTheConnectionHeader() {
        List<Object> out = feed(
                "GET /a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                "GET /a HTTP/1.0\r\n\r\n",
                "GET /a HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n",
                "GET /a HTTP/1.1\r\nHost: x\r\nConnection: foo, close\r\n\r\n",
                "GET /a HTTP/1.1\r\nHost: x\r\n\r\n");
        assertThat(out).extracting(o -> ((Request) o).keepAlive()).containsExactly(false, false, true, false, true);
    }

    @Test
    void bareLineFeedsAndLeadingEmptyLinesAreAccepted() {
        List<Object> out = feed("\r\n\nGET /v0/entity?id=a HTTP/1.1\nHost: x\nContent-Length: 1\n\nx");
        assertThat(out).hasSize(1);
        assertThat(body(out.getFirst())).isEqualTo("x");
    }

    @Test
    void aBodyOverTheLimitByContentLengthIsSkippedAndTheConnectionGoesOn() {
        List<Object> out = feed(
                "PUT /v0/entity?id=a HTTP/1.1\r\nHost: x\r\nContent-Length: 1001\r\n\r\n",
                "a".repeat(1001) + "GET /v0/entity?id=b HTTP/1.1\r\nHost: x\r\n\r\n");
        assertThat(out).hasSize(2);
        assertThat(out.get(0)).isEqualTo(new RequestError.TooLarge(HttpVersion.HTTP_1_1, true, false));
        assertThat(((Request) out.get(1)).uri()).isEqualTo("/v0/entity?id=b");
    }

    @Test
    void aChunkedBodyOverTheLimitEndsTheConnection() {
        List<Object> out = feed(
                "PUT /v0/entity?id=a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n",
                "3E9\r\n" + "a".repeat(1001) + "\r\n0\r\n\r\nGET /v0/entity?id=b HTTP/1.1\r\nHost: x\r\n\r\n");
        assertThat(out).containsExactly(new RequestError.TooLarge(HttpVersion.HTTP_1_1, false, false));
    }

    @Test
    void expectContinueIsAnsweredBeforeTheBodyAndOtherExpectationsAre417() {
        List<Object> out = feed(
                "PUT /v0/entity?id=a HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n" + "Content-Length: 2\r\n\r\n");
        assertThat(out).isEmpty();
        ByteBuf interim = channel.readOutbound();
        assertThat(interim.toString(StandardCharsets.US_ASCII)).isEqualTo("HTTP/1.1 100 Continue\r\n\r\n");
        interim.release();
        assertThat(body(feed("ok").getFirst())).isEqualTo("ok");
        assertThat(feed("GET /a HTTP/1.1\r\nHost: x\r\nExpect: something\r\n\r\n"))
                .containsExactly(new RequestError.UnsupportedExpectation(HttpVersion.HTTP_1_1, true, false));
    }

    @Test
    void malformedRequestsAreRefusedAndNothingMoreIsRead() {
        String[] bad = {
            "this is not http\r\n\r\n",
            "GET /a HTTP/2.0\r\n\r\n",
            "GET /a HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n",
            "GET /a HTTP/1.1\r\nHost: x\r\nName : v\r\n\r\n",
            "PUT /a HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
            "PUT /a HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
            "PUT /a HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n",
            "PUT /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n",
            "PUT /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
            "GET /\u00e9 HTTP/1.1\r\nHost: x\r\n\r\n",
            "GET /" + "a".repeat(300) + " HTTP/1.1\r\nHost: x\r\n\r\n",
            "GET /a HTTP/1.1\r\nHost: x\r\nX: " + "v".repeat(400) + "\r\n\r\n",
            "GET /a HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n",
        };
        for (String b : bad) {
            EmbeddedChannel ch = new EmbeddedChannel(new RequestDecoder(200, 300, BODY_LIMIT, List.of("/v0/entity")));
            ch.writeInbound(
                    Unpooled.copiedBuffer(b + "GET /ok HTTP/1.1\r\nHost: x\r\n\r\n", StandardCharsets.ISO_8859_1));
            Object first = ch.readInbound();
            assertThat(first).as(b).isInstanceOf(RequestError.Malformed.class);
            assertThat(ch.<Object>readInbound()).as("nothing after %s", b).isNull();
            ch.finishAndReleaseAll();
        }
    }

    @Test
    @Timeout(10)
    void http10ChunkedIsRefusedAndNothingBehindItIsRead() {
        // RFC 9112 §6.1: an HTTP/1.0 message with Transfer-Encoding has faulty framing; a server that read
        // it as chunked would run the request smuggled after the last chunk
        List<Object> out = feed("PUT /v0/entity?id=a HTTP/1.0\r\nTransfer-Encoding: chunked\r\n"
                + "Connection: keep-alive\r\n\r\n0\r\n\r\n"
                + "PUT /v0/entity?id=smuggled HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nEVIL!");
        assertThat(out).hasSize(1);
        assertThat(out.getFirst()).isInstanceOf(RequestError.Malformed.class);
        assertThat(feed("GET /v0/entity?id=b HTTP/1.1\r\nHost: x\r\n\r\n"))
                .as("nothing more is read")
                .isEmpty();
    }

    @Test
    @Timeout(10)
    void anErrorSaysWhetherTheRequestWasHeadSoItsResponseGoesWithoutBody() {
        assertThat(feed(
                        "HEAD /a HTTP/1.1\r\nHost: x\r\nExpect: something\r\n\r\n",
                        "GET /a HTTP/1.1\r\nHost: x\r\nExpect: something\r\n\r\n"))
                .containsExactly(
                        new RequestError.UnsupportedExpectation(HttpVersion.HTTP_1_1, true, true),
                        new RequestError.UnsupportedExpectation(HttpVersion.HTTP_1_1, true, false));
        assertThat(feed("HEAD /a HTTP/1.1\r\nHost: x\r\nContent-Length: 1001\r\n\r\n"))
                .containsExactly(new RequestError.TooLarge(HttpVersion.HTTP_1_1, true, true));
        assertThat(feed("a".repeat(1001) + "HEAD /a HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n"))
                .containsExactly(new RequestError.Malformed("malformed header field", true));
    }

    @Test
    @Timeout(10)
    void anHttp11RequestWithoutHostOrAnyWithTwoIsRefused() {
        // RFC 9112 §3.2: 400 for an HTTP/1.1 request without Host, and for any request with more than one
        String[] bad = {
            "GET /v0/entity?id=a HTTP/1.1\r\n\r\n",
            "PUT /v0/entity?id=a HTTP/1.1\r\nContent-Length: 1\r\n\r\nx",
            "GET /a HTTP/1.1\r\nX-Host: x\r\n\r\n",
            "GET /v0/entity?id=a HTTP/1.1\r\nHost: x\r\nhost: y\r\n\r\n",
            "GET /a HTTP/1.1\r\nHost: x\r\nHOST: x\r\n\r\n",
            "GET /v0/entity?id=a HTTP/1.0\r\nHost: x\r\nHost: y\r\n\r\n",
        };
        for (String b : bad) {
            EmbeddedChannel ch = new EmbeddedChannel(new RequestDecoder(200, 300, BODY_LIMIT, List.of("/v0/entity")));
            ch.writeInbound(
                    Unpooled.copiedBuffer(b + "GET /ok HTTP/1.1\r\nHost: x\r\n\r\n", StandardCharsets.ISO_8859_1));
            Object first = ch.readInbound();
            try {
                assertThat(first).as(b).isInstanceOf(RequestError.Malformed.class);
                assertThat(ch.<Object>readInbound()).as("nothing after %s", b).isNull();
            } finally {
                Request.release(first);
                ch.finishAndReleaseAll();
            }
        }
    }

    @Test
    @Timeout(10)
    void hostMayBeEmptyAndHttp10MayOmitIt() {
        List<Object> out = feed(
                "GET /v0/entity?id=a HTTP/1.0\r\n\r\n",
                "GET /a HTTP/1.0\r\n\r\n",
                "GET /a HTTP/1.1\r\nhost:\r\n\r\n",
                "GET /v0/entity?id=a HTTP/1.1\r\nHOST: x:8080\r\n\r\n");
        assertThat(out).hasSize(4).allMatch(o -> o instanceof Request);
    }

    @Test
    @Timeout(10)
    void anAbsoluteFormTargetIsReducedToOriginForm() {
        // RFC 9112 §3.2.2: a server must accept absolute-form; the authority in it is not checked
        List<Object> out = feed(
                "GET http://example.com:8080/v0/entity?id=a HTTP/1.1\r\nHost: x\r\n\r\n",
                "PUT HTTPS://user@10.0.0.1/v0/entity?id=b HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nv",
                "GET http://h/v0/entities?start=a HTTP/1.1\r\nHost: x\r\nAccept: application/x-ndjson\r\n\r\n",
                "POST Http://[::1]:9/internal/v0/batch HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n",
                "POST http://h/v0/admin/flush HTTP/1.1\r\nHost: x\r\n\r\n",
                "GET http://h/health HTTP/1.1\r\nHost: x\r\n\r\n",
                "GET http://h HTTP/1.1\r\nHost: x\r\n\r\n",
                "GET http://h?x=1 HTTP/1.1\r\nHost: x\r\n\r\n",
                "GET /v0/entity?id=http://h/ HTTP/1.1\r\nHost: x\r\n\r\n");
        assertThat(out)
                .extracting(o -> ((Request) o).uri())
                .containsExactly(
                        "/v0/entity?id=a",
                        "/v0/entity?id=b",
                        "/v0/entities?start=a",
                        "/internal/v0/batch",
                        "/v0/admin/flush",
                        "/health",
                        "/",
                        "/?x=1",
                        "/v0/entity?id=http://h/");
        assertThat(((Request) out.get(0)).header("host"))
                .as("the point path keeps no header fields")
                .isNull();
        assertThat(body(out.get(1))).isEqualTo("v");
        assertThat(((Request) out.get(2)).header("accept")).isEqualTo("application/x-ndjson");
    }

    @Test
    @Timeout(10)
    void anAbsoluteFormTargetWithoutHostIsRefused() {
        // RFC 9110 §4.2.1: an http(s) URI with an empty host is invalid
        assertThat(feed("GET http:///v0/entity?id=a HTTP/1.1\r\nHost: x\r\n\r\n"))
                .singleElement()
                .isInstanceOf(RequestError.Malformed.class);
    }

    @Test
    void aSplitRequestLineWaitsForTheRest() {
        assertThat(feed("GE", "T /v0/entity?i", "d=a HTTP/1.")).isEmpty();
        assertThat(feed("1\r\nHost: x\r\n\r\n")).hasSize(1);
    }
}
