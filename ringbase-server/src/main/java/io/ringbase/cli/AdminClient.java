package io.ringbase.cli;

import io.ringbase.auth.RequestSigner;
import io.ringbase.clock.TimeSource;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The HTTP side of {@code ringbase admin}: sends a request to a node, signed like node-to-node requests
 * ({@link RequestSigner}, header {@link RequestSigner#HEADER}) when a secret is given, and turns
 * failures into {@link Failure}s that carry the command's exit code.
 */
final class AdminClient {

    /** Exit code: the node answered an error, or the job it ran did not end well. */
    static final int EXIT_FAILED = 1;
    /** Exit code: the node could not be reached (refused, timed out, bad URL). */
    static final int EXIT_UNREACHABLE = 3;
    /** Exit code: the node refused the request's signature (403): a missing or wrong --secret-file. */
    static final int EXIT_FORBIDDEN = 4;

    /** A failed call, with the exit code and one line for the user. */
    static final class Failure extends Exception {
        final int exitCode;

        Failure(int exitCode, String message) {
            super(message);
            this.exitCode = exitCode;
        }
    }

    private final URI base;
    private final RequestSigner signer;
    private final TimeSource time;
    private final Duration timeout;
    private final HttpClient http;

    /**
     * @param url     the node, {@code http://host:port}
     * @param secret  the cluster secret, or {@code null} to send unsigned requests
     * @param timeout per request
     * @param time    the wall clock signatures are made on
     */
    AdminClient(String url, byte[] secret, Duration timeout, TimeSource time) {
        this(
                URI.create(url.endsWith("/") ? url.substring(0, url.length() - 1) : url),
                RequestSigner.of(secret),
                timeout,
                time);
    }

    private AdminClient(URI base, RequestSigner signer, Duration timeout, TimeSource time) {
        this.base = base;
        this.signer = signer;
        this.timeout = timeout;
        this.time = time;
        this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
    }

    /** The node's URL as given. */
    String url() {
        return base.toString();
    }

    /** This client for another node of the cluster, with the same secret and timeout. */
    AdminClient at(String url) {
        return new AdminClient(URI.create(url), signer, timeout, time);
    }

    /**
     * Sends {@code method target} with an empty body and returns the body of a 2xx answer.
     *
     * @param target path and query, e.g. {@code /v0/admin/snapshot?name=n}
     * @throws Failure on any other answer or no answer
     */
    String send(String method, String target) throws Failure {
        HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(target))
                .timeout(timeout)
                .method(method, HttpRequest.BodyPublishers.noBody());
        if (signer.signs()) {
            b.header(RequestSigner.HEADER, signer.sign(method, target, new byte[0], time.currentTimeMillis()));
        }
        HttpResponse<String> r;
        try {
            r = http.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new Failure(EXIT_UNREACHABLE, "cannot reach " + base + ": " + describe(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Failure(EXIT_UNREACHABLE, "interrupted while calling " + base);
        } catch (IllegalArgumentException e) {
            throw new Failure(EXIT_UNREACHABLE, "bad --url " + base + ": " + e.getMessage());
        }
        if (r.statusCode() == 403) {
            throw new Failure(
                    EXIT_FORBIDDEN,
                    base + " refused the request (403): " + r.body().strip()
                            + (!signer.signs()
                                    ? " (give --secret-file)"
                                    : " (is --secret-file the cluster's secret?)"));
        }
        if (r.statusCode() / 100 != 2) {
            throw new Failure(
                    EXIT_FAILED,
                    method + " " + target + " on " + base + " answered " + r.statusCode() + ": "
                            + r.body().strip());
        }
        return r.body();
    }

    private static String describe(IOException e) {
        String what = e.getClass().getSimpleName();
        if (e instanceof java.net.ConnectException) {
            what = "connection refused";
        } else if (e instanceof java.net.http.HttpTimeoutException) {
            what = "no answer in time";
        }
        return e.getMessage() == null || e.getMessage().isBlank() ? what : what + " (" + e.getMessage() + ")";
    }
}
