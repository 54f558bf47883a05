package io.ringbase.api;

import io.netty.handler.codec.http.HttpMethod;
import io.ringbase.api.wire.Request;
import io.ringbase.auth.ClientTokens;
import io.ringbase.auth.Permission;
import io.ringbase.auth.TokenGrant;

/**
 * Checks a request's client token against its route's {@link Access}, before the route runs (point
 * requests served on the I/O thread included): 401 ({@link UnauthorizedException}) without a known token,
 * 403 ({@link ForbiddenException}) for a token without the permission or whose key prefix does not cover
 * the key or range. A request to a token with a prefix has its query decoded here once more; others are
 * checked from the header alone. Stateless.
 */
final class ClientAuth {

    private ClientAuth() {}

    /**
     * Checks {@code request} for {@code entry} under {@code tokens} ({@link ClientTokens#enabled()}).
     *
     * @throws UnauthorizedException without a token, or with one not in the file
     * @throws ForbiddenException    with a token that lacks the permission or whose prefix does not cover the keys
     * @throws BadRequestException   if the query of a prefix-limited data request cannot be decoded
     */
    static void check(ClientTokens tokens, RouteTable.Entry entry, Request request)
            throws UnauthorizedException, ForbiddenException, BadRequestException {
        Access access = entry.access();
        if (access == Access.OPEN || access == Access.NODE) {
            return;
        }
        String authorization = request.authorization();
        TokenGrant grant = tokens.authorize(authorization);
        if (grant == null) {
            throw new UnauthorizedException(authorization != null);
        }
        switch (access) {
            case KEY -> {
                HttpMethod m = request.method();
                boolean read = m.equals(HttpMethod.GET) || m.equals(HttpMethod.HEAD);
                require(grant, read ? Permission.READ : Permission.WRITE);
                if (grant.prefix() != null) {
                    byte[] key = query(request).bytes("id");
                    if (key != null && !grant.covers(key)) { // no id: the route answers 400
                        throw outsidePrefix(grant);
                    }
                }
            }
            case RANGE -> {
                require(grant, Permission.READ);
                if (grant.prefix() != null) {
                    QueryString q = query(request);
                    byte[] start = q.bytes("start");
                    if (start != null && !grant.coversRange(start, q.bytes("end"))) {
                        throw outsidePrefix(grant);
                    }
                }
            }
            case READ -> require(grant, Permission.READ);
            case METRICS -> {
                if (!grant.allows(Permission.METRICS) && !grant.allows(Permission.ADMIN)) {
                    throw new ForbiddenException(
                            "token '" + grant.name() + "' lacks the metrics permission (or admin) this path needs");
                }
            }
            case ADMIN -> require(grant, Permission.ADMIN);
            case TOKEN, OPEN, NODE -> {}
        }
    }

    private static void require(TokenGrant grant, Permission p) throws ForbiddenException {
        if (!grant.allows(p)) {
            throw new ForbiddenException(
                    "token '" + grant.name() + "' lacks the " + p.fileName() + " permission this request needs");
        }
    }

    private static ForbiddenException outsidePrefix(TokenGrant grant) {
        return new ForbiddenException("token '" + grant.name()
                + "' is limited to keys under its prefix; a scan needs start and end within it");
    }

    private static QueryString query(Request request) throws BadRequestException {
        byte[] target = request.target();
        for (int i = 0; i < target.length; i++) {
            if (target[i] == '?') {
                return QueryString.parse(target, i + 1);
            }
        }
        return QueryString.parse(null);
    }
}
