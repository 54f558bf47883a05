package io.ringbase.api;

import io.ringbase.api.wire.Request;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * {@code GET /v0/ring}: the placement clients route by ({@link RingView}), as JSON or, with
 * {@code ?format=text}, as lines a client parses with a split on spaces (both in {@code docs/http-api.md},
 * "Placement for clients"). Read-only: a few hundred bytes made from the placement in memory, on a worker.
 * Stateless and thread-safe.
 */
final class RingApi implements Route {

    static final String RING = "/v0/ring";

    /** The first line of the text format: its name and version. A change of the lines' meaning bumps it. */
    static final String TEXT_HEADER = "ringbase-ring 1";

    /** The key hash's name in both formats: XXH64, seed 0, of the key's UTF-8 bytes. */
    static final String HASH = "xxh64";

    /** The weight function's name: rendezvous hashing with MurmurHash3's fmix64 over {@code hash ^ xxh64(seed)}. */
    static final String PLACEMENT = "rendezvous-fmix64";

    private final Supplier<@Nullable RingView> ring;

    /**
     * @param ring the placement now, read per request so that an epoch change shows at once; {@code null}
     *             on a server that has none (a bare server of tests and tools), answered 404
     */
    RingApi(Supplier<@Nullable RingView> ring) {
        this.ring = ring;
    }

    @Override
    public Outcome handle(Request request, String path, QueryString query, boolean mayWait)
            throws MethodNotAllowedException, BadRequestException, NotFoundException {
        if (!request.method().equals(io.netty.handler.codec.http.HttpMethod.GET)) {
            throw new MethodNotAllowedException(request.method().name(), "GET");
        }
        String format = query.string("format");
        RingView view = ring.get();
        if (view == null) {
            throw new NotFoundException("no ring on this server");
        }
        if (format == null || format.equals("json")) {
            return new Outcome.Body(json(view).getBytes(StandardCharsets.UTF_8), "application/json");
        }
        if (format.equals("text")) {
            return new Outcome.Body(text(view).getBytes(StandardCharsets.UTF_8), "text/plain; charset=utf-8");
        }
        throw new BadRequestException("format must be json or text, got '" + format + "'");
    }

    /** The JSON form: one object, no whitespace, a newline at the end. */
    static String json(RingView view) {
        StringBuilder s = new StringBuilder(96 + 96 * view.nodes().size());
        s.append("{\"epoch\":").append(view.epoch());
        s.append(",\"replicationFactor\":").append(view.replicationFactor());
        s.append(",\"hash\":\"").append(HASH).append('"');
        s.append(",\"placement\":\"").append(PLACEMENT).append('"');
        s.append(",\"nodes\":[");
        for (int i = 0; i < view.nodes().size(); i++) {
            RingView.Member m = view.nodes().get(i);
            s.append(i == 0 ? "" : ",");
            // Member refuses quotes, backslashes and control characters: nothing to escape
            s.append("{\"url\":\"")
                    .append(m.url())
                    .append("\",\"seed\":\"")
                    .append(m.seed())
                    .append("\"}");
        }
        return s.append("]}\n").toString();
    }

    /** The text form: a header line, then one {@code name value...} line per field and per node. */
    static String text(RingView view) {
        StringBuilder s = new StringBuilder(96 + 96 * view.nodes().size());
        s.append(TEXT_HEADER).append('\n');
        s.append("epoch ").append(view.epoch()).append('\n');
        s.append("replication-factor ").append(view.replicationFactor()).append('\n');
        s.append("hash ").append(HASH).append('\n');
        s.append("placement ").append(PLACEMENT).append('\n');
        for (RingView.Member m : view.nodes()) {
            s.append("node ").append(m.url()).append(' ').append(m.seed()).append('\n');
        }
        return s.toString();
    }
}
