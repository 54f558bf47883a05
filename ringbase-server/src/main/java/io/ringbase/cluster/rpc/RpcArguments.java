package io.ringbase.cluster.rpc;

import io.ringbase.storage.Entry;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The checks of an internal HTTP request's method, parameters and body that {@link ReplicaServer} makes
 * before it serves one: each failure is a {@link RpcException} with the status (400 or 405)
 * and a one-line reason naming the parameter.
 */
final class RpcArguments {

    private RpcArguments() {}

    static int range(ReplicaServer.RpcRequest request) throws RpcException {
        return intOrDefault(request, "range", -1); // RepairSource checks 0..15 (a missing range fails there)
    }

    static void requireGet(String method) throws RpcException {
        if (!method.equals("GET")) {
            throw notAllowed(method, "GET");
        }
    }

    static Entry single(byte[] body) throws RpcException {
        try {
            List<Entry> entries = InternalProtocol.decode(body);
            if (entries.size() != 1) {
                throw badRequest("expected one encoded entry, got " + entries.size());
            }
            return entries.getFirst();
        } catch (IllegalArgumentException e) {
            throw badRequest("undecodable entry: " + e.getMessage());
        }
    }

    static byte[] hexKey(ReplicaServer.RpcRequest request, String name) throws RpcException {
        String s = request.param(name);
        if (s == null) {
            throw badRequest("missing parameter '" + name + "'");
        }
        return unhex(s, name);
    }

    static byte[] unhex(String s, String name) throws RpcException {
        try {
            return InternalProtocol.unhex(s);
        } catch (IllegalArgumentException e) {
            throw badRequest("parameter '" + name + "' is not hex");
        }
    }

    static int intParam(ReplicaServer.RpcRequest request, String name, int dflt) throws RpcException {
        int v = intOrDefault(request, name, dflt);
        if (v <= 0) {
            throw badRequest("parameter '" + name + "' must be a positive integer, got " + v);
        }
        return v;
    }

    static int intOrDefault(ReplicaServer.RpcRequest request, String name, int dflt) throws RpcException {
        String s = request.param(name);
        if (s == null) {
            return dflt;
        }
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            throw badRequest("parameter '" + name + "' must be an integer, got '"
                    + (s.length() <= 64 ? s : s.substring(0, 64) + "...") + "'");
        }
    }

    static RpcException badRequest(@Nullable String message) {
        return new RpcException(400, message, null);
    }

    static RpcException notAllowed(String method, String allow) {
        return new RpcException(405, "method " + method + " not allowed; allowed: " + allow, allow);
    }
}
