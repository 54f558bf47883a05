package io.ringbase.bench;

import java.nio.file.Path;

/**
 * One load generator process: what it sends and how fast. Both generators ({@link RategenDriver},
 * {@link OhaDriver}) take it.
 *
 * @param method      HTTP method
 * @param url         for {@link UrlSource#NEW_KEYS} a URL with a {@code {key}} placeholder, for
 *                    {@link UrlSource#FILE} the path of a file of URLs
 * @param source      what {@code url} is
 * @param body        request body file, or null
 * @param rate        requests per second
 * @param connections connections
 */
public record LoadSpec(String method, String url, UrlSource source, Path body, double rate, int connections) {

    /** The placeholder in a {@link UrlSource#NEW_KEYS} URL that each request replaces by 12 random digits. */
    public static final String KEY = "{key}";

    /** How the generator gets its URLs. */
    public enum UrlSource {
        /** {@code url} holds {@link #KEY}, replaced per request by 12 random decimal digits (a new key each time). */
        NEW_KEYS,
        /** {@code url} is a file of URLs, one a line, drawn at random per request. */
        FILE
    }

    /** This spec with another rate and number of connections. */
    public LoadSpec at(double newRate, int newConnections) {
        return new LoadSpec(method, url, source, body, newRate, newConnections);
    }
}
