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
import javax.net.ssl.SSLContext;
import org.jspecify.annotations.Nullable;

/**
 * The HTTP side of {@code ringbase admin}: sends a request to a node, signed like node-to-node requests
 * ({@link RequestSigner}, header {@link RequestSigner#HEADER}) when a secret is given, and turns
 * failures into {@link Failure}s that carry the command's exit code. With a client token (the variable
 * {@value #TOKEN_VARIABLE}, for a node with {@code --token-file}) it sends {@code Authorization: Bearer}.
 */
final class AdminClient {

    /** Exit code: the node answered an error, or the job it ran did not end well. */
    static final int EXIT_FAILED = 1;
    /** Exit code: the node could not be reached (refused, timed out, bad URL). */
    static final int EXIT_UNREACHABLE = 3;
    /** Exit code: the node refused the request's signature (403): a missing or wrong --secret-file. */
    static final int EXIT_FORBIDDEN = 4;

    /** The environment variable holding the client token ({@code admin} permission) of {@code ringbase admin}. */
    static final String TOKEN_VARIABLE = "RINGBASE_TOKEN";

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
    private final @Nullable String token;
    private final TimeSource time;
    private final Duration timeout;
    private final @Nullable SSLContext tls;
    private final HttpClient http;

    /**
     * @param url     the node, {@code http://host:port}
     * @param secret  the cluster secret, or {@code null} to send unsigned requests
     * @param token   the client token to send as a bearer token, or {@code null} for none
     * @param timeout per request
     * @param time    the wall clock signatures are made on
     */
    AdminClient(String url, byte @Nullable [] secret, @Nullable String token, Duration timeout, TimeSource time) {
        this(url, secret, token, timeout, time, null);
    }

    /**
     * As above, for {@code https://} nodes with {@code tls}: whom to trust ({@code --tls-ca}); {@code null}
     * trusts the JDK's default certificate authorities.
     */
    AdminClient(
            String url,
            byte @Nullable [] secret,
            @Nullable String token,
            Duration timeout,
            TimeSource time,
            @Nullable SSLContext tls) {
        this(
                URI.create(url.endsWith("/") ? url.substring(0, url.length() - 1) : url),
                RequestSigner.of(secret),
                token,
                timeout,
                time,
                tls);
    }

    private AdminClient(
            URI base,
            RequestSigner signer,
            @Nullable String token,
            Duration timeout,
            TimeSource time,
            @Nullable SSLContext tls) {
        this.base = base;
        this.signer = signer;
        this.token = token;
        this.timeout = timeout;
        this.time = time;
        this.tls = tls;
        HttpClient.Builder http = HttpClient.newBuilder().connectTimeout(timeout);
        if (tls != null) {
            http.sslContext(tls);
        }
        this.http = http.build();
    }

    /** The node's URL as given. */
    String url() {
        return base.toString();
    }

    /** This client for another node of the cluster, with the same secret and timeout. */
    AdminClient at(String url) {
        return new AdminClient(URI.create(url), signer, token, timeout, time, tls);
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
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        HttpResponse<String> r;
        try {
            r = http.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (javax.net.ssl.SSLHandshakeException e) {
            throw new Failure(
                    EXIT_UNREACHABLE,
                    "cannot reach " + base + ": the TLS handshake failed (" + e.getMessage() + ")"
                            + (tls == null
                                    ? "; for a node whose certificate a private CA signed, give --tls-ca"
                                    : "; is --tls-ca the CA that signed the node's certificate?"));
        } catch (IOException e) {
            throw new Failure(EXIT_UNREACHABLE, "cannot reach " + base + ": " + describe(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Failure(EXIT_UNREACHABLE, "interrupted while calling " + base);
        } catch (IllegalArgumentException e) {
            throw new Failure(EXIT_UNREACHABLE, "bad --url " + base + ": " + e.getMessage());
        }
        if (r.statusCode() == 401) {
            throw new Failure(
                    EXIT_FORBIDDEN,
                    base + " wants a client token (401): " + r.body().strip() + " (set " + TOKEN_VARIABLE
                            + " to a token with the admin permission)");
        }
        if (r.statusCode() == 403 && r.body().startsWith("token ")) {
            throw new Failure(
                    EXIT_FORBIDDEN,
                    base + " refused the request (403): " + r.body().strip());
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
