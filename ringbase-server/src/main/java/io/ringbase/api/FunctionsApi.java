package io.ringbase.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.HttpMethod;
import io.ringbase.api.wire.Request;
import io.ringbase.auth.RequestSigner;
import io.ringbase.clock.TimeSource;
import io.ringbase.functions.DistributedJob;
import io.ringbase.functions.FunctionLimits;
import io.ringbase.functions.FunctionStore;
import io.ringbase.functions.InvalidModuleException;
import io.ringbase.functions.Jobs;
import io.ringbase.functions.OnError;
import io.ringbase.functions.ProcessJob;
import io.ringbase.functions.ProcessMode;
import io.ringbase.functions.ProcessRequest;
import io.ringbase.kv.KeyValueService;
import io.ringbase.kv.LocalBatchSource;
import io.ringbase.kv.SystemKeys;
import io.ringbase.storage.Keys;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The server-side functions API (docs/functions.md, docs/http-api.md): {@code PUT/GET/DELETE
 * /v0/functions/<name>} manage modules, {@code POST /v0/process} runs a job over a range,
 * {@code GET /v0/process} lists the running jobs and {@code DELETE /v0/process/<id>} cancels one. A
 * {@code map} job streams its output as a range response (framed as {@code Accept} asks) that ends with a
 * summary record; {@code reduce} and {@code update} answer one JSON summary when done. Everything runs on
 * workers and the functions' own pool. Stateless and thread-safe.
 */
final class FunctionsApi {

    /** The prefix of the functions' paths. */
    static final String FUNCTIONS = "/v0/functions/";
    /** The path that starts jobs and lists them. */
    static final String PROCESS = "/v0/process";
    /** The prefix of a job's path. */
    static final String PROCESS_JOB = "/v0/process/";
    /** The internal path that runs one page of a job's share on this node (docs/http-api.md). */
    static final String PROCESS_SHARE = "/internal/v0/process-share";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern JOB_ID = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

    private final KeyValueService kv;
    private final Jobs jobs;
    private final RequestSigner signer;
    private final TimeSource time;

    /**
     * @param signer checks the signature of {@link #PROCESS_SHARE} requests ({@link RequestSigner#NONE}: no
     *               secret, unsigned accepted)
     * @param time   the clock signatures are checked against
     */
    FunctionsApi(KeyValueService kv, Jobs jobs, RequestSigner signer, TimeSource time) {
        this.kv = kv;
        this.jobs = jobs;
        this.signer = signer;
        this.time = time;
    }

    /** The route of {@link #FUNCTIONS}. */
    Route functions() {
        return (request, path, query, mayWait) -> {
            String name = path.substring(FUNCTIONS.length());
            try {
                FunctionStore.checkName(name);
            } catch (IllegalArgumentException e) {
                throw new BadRequestException(e.getMessage());
            }
            HttpMethod method = request.method();
            FunctionStore store = jobs.store();
            if (method.equals(HttpMethod.PUT)) {
                ByteBuf body = request.content();
                if (body.readableBytes() > FunctionLimits.MAX_MODULE_BYTES) {
                    throw new PayloadTooLargeException(FunctionLimits.MAX_MODULE_BYTES);
                }
                try {
                    return new Outcome.Written(store.put(name, ByteBufUtil.getBytes(body)));
                } catch (InvalidModuleException e) {
                    throw new BadRequestException("module refused: " + e.getMessage());
                }
            }
            if (method.equals(HttpMethod.GET)) {
                io.ringbase.kv.Versioned module = store.getVersioned(name);
                if (module == null) {
                    throw new NotFoundException("no function '" + name + "'");
                }
                return new Outcome.Value(Unpooled.wrappedBuffer(module.value()), module.version());
            }
            if (method.equals(HttpMethod.DELETE)) {
                return new Outcome.Deleted(store.delete(name));
            }
            throw new MethodNotAllowedException(method.name(), "GET, PUT, DELETE");
        };
    }

    /** The route of {@link #PROCESS}: POST starts a job, GET lists the running ones. */
    Route process() {
        return (request, path, query, mayWait) -> {
            HttpMethod method = request.method();
            if (method.equals(HttpMethod.GET)) {
                return json(running());
            }
            if (!method.equals(HttpMethod.POST)) {
                throw new MethodNotAllowedException(method.name(), "POST, GET");
            }
            ProcessRequest asked = parse(query);
            boolean onReplicas = spread(query, asked.mode());
            ProcessJob job;
            try {
                job = jobs.start(asked);
            } catch (IllegalArgumentException e) {
                throw new BadRequestException(e.getMessage());
            } catch (InvalidModuleException e) {
                throw new IOException("stored function '" + asked.function() + "' no longer loads: " + e.getMessage());
            }
            DistributedJob distributed = null;
            if (onReplicas) {
                try {
                    distributed = jobs.distributed(job);
                } catch (Exception e) {
                    job.abandon(); // too few nodes up
                    throw e;
                }
            }
            if (distributed != null) {
                if (asked.mode() == ProcessMode.MAP) {
                    return new Outcome.Range(distributed.mapOutput(), RangeFormat.of(request.header("accept")), false);
                }
                return new Outcome.Pending(distributed
                        .run()
                        .thenApply(summary -> new Outcome.Body(withNewline(summary), "application/json")));
            }
            ProcessJob.ScanOpener opener = from -> asked.end() != null && Keys.compare(from, asked.end()) >= 0
                    ? LocalBatchSource.empty() // not every engine accepts end < start
                    : SystemKeys.hidden(kv.scan(from, asked.end(), false));
            try {
                return start(job, asked, opener.open(asked.start()), opener, request);
            } catch (Exception e) {
                job.abandon(); // the scan could not start (too few replicas up)
                throw e;
            }
        };
    }

    private static Outcome start(
            ProcessJob job,
            ProcessRequest asked,
            io.ringbase.kv.EntryBatchSource scan,
            ProcessJob.ScanOpener opener,
            Request request) {
        if (asked.mode() == ProcessMode.MAP) {
            return new Outcome.Range(job.mapOutput(scan, opener), RangeFormat.of(request.header("accept")), false);
        }
        return new Outcome.Pending(
                job.run(scan, opener).thenApply(summary -> new Outcome.Body(withNewline(summary), "application/json")));
    }

    /**
     * The route of {@link #PROCESS_SHARE}: POST runs one page of a share of a job another node coordinates
     * and answers what it did ({@link io.ringbase.functions.SharePage}).
     */
    Route share() {
        return (request, path, query, mayWait) -> {
            HttpMethod method = request.method();
            if (!method.equals(HttpMethod.POST)) {
                throw new MethodNotAllowedException(method.name(), "POST");
            }
            byte[] body = ByteBufUtil.getBytes(request.content());
            String auth = request.header(RequestSigner.HEADER);
            if (!signer.verify(method.name(), request.uri(), body, auth, time.currentTimeMillis())) {
                throw new ForbiddenException(
                        auth == null
                                ? "internal request without " + RequestSigner.HEADER
                                : "internal request with an invalid or expired " + RequestSigner.HEADER);
            }
            try {
                return new Outcome.Pending(
                        jobs.runSharePage(body).thenApply(reply -> new Outcome.Body(reply, "application/json")));
            } catch (IllegalArgumentException e) {
                throw new BadRequestException(e.getMessage());
            } catch (InvalidModuleException e) {
                throw new IOException("stored function no longer loads: " + e.getMessage());
            }
        };
    }

    /** The route of {@link #PROCESS_JOB}: DELETE cancels the job, GET tells how far it is. */
    Route job() {
        return (request, path, query, mayWait) -> {
            String id = path.substring(PROCESS_JOB.length());
            HttpMethod method = request.method();
            ProcessJob job = jobs.job(id);
            if (method.equals(HttpMethod.DELETE)) {
                if (!jobs.cancel(id)) {
                    throw new NotFoundException("no running job '" + abbreviate(id) + "'");
                }
                return new Outcome.Reply( // the job stops at its next key
                        202,
                        "text/plain; charset=utf-8",
                        "cancelling\n".getBytes(java.nio.charset.StandardCharsets.UTF_8),
                        java.util.Map.of());
            }
            if (method.equals(HttpMethod.GET)) {
                if (job == null) {
                    throw new NotFoundException("no running job '" + abbreviate(id) + "'");
                }
                return json(describe(job));
            }
            throw new MethodNotAllowedException(method.name(), "GET, DELETE");
        };
    }

    /**
     * Whether a job runs on the key's replicas ({@code spread=replicas}) or at this node, the coordinator
     * ({@code spread=coordinator}, the default). On the replicas every node scans the range for its share
     * (each replica sends only the share's keys, but reads the whole range locally for each share), runs
     * it in pages of 128 keys, and map records travel once more, to the coordinator: a cheap function does
     * not win that back (identity map on one 3-node process: 0.37-0.59 s against 0.22-0.34 s, third of
     * three runs); a costly one spreads its calls over the nodes' CPUs (docs/functions.md, "How a job is
     * distributed").
     *
     * @throws BadRequestException for another value, or {@code replicas} with {@code update}: a replica that
     *                             wrote some keys of a page and failed before its answer came would have
     *                             them updated again by the next replica
     */
    private static boolean spread(QueryString query, ProcessMode mode) throws BadRequestException {
        String spread = query.string("spread");
        if (spread == null || spread.equals("coordinator")) {
            return false;
        }
        if (!spread.equals("replicas")) {
            throw new BadRequestException("spread must be coordinator or replicas, got '" + abbreviate(spread) + "'");
        }
        if (mode == ProcessMode.UPDATE) {
            throw new BadRequestException("spread=replicas is for map and reduce: update runs at the coordinator");
        }
        return true;
    }

    private static ProcessRequest parse(QueryString query) throws BadRequestException {
        String fn = query.string("fn");
        if (fn == null || fn.isEmpty()) {
            throw new BadRequestException("missing or empty parameter 'fn'");
        }
        byte[] start = EntityApi.requireKey(query, "start");
        byte[] end = query.bytes("end");
        if (end != null) {
            EntityApi.checkKeyLength("end", end);
        }
        String modeName = query.string("mode");
        String onErrorName = query.string("onError");
        String id = query.string("id");
        if (id != null && !JOB_ID.matcher(id).matches()) {
            throw new BadRequestException("a job id is 1 to 64 of A-Z a-z 0-9 _ . -, got '" + abbreviate(id) + "'");
        }
        try {
            FunctionStore.checkName(fn);
            ProcessMode mode = ProcessMode.parse(modeName == null ? "map" : modeName);
            OnError onError = OnError.parse(onErrorName == null ? "stop" : onErrorName);
            return new ProcessRequest(fn, start, end, mode, onError, id);
        } catch (IllegalArgumentException e) {
            throw new BadRequestException(e.getMessage());
        }
    }

    private List<Map<String, Object>> running() {
        List<Map<String, Object>> out = new ArrayList<>();
        for (ProcessJob job : jobs.running()) {
            out.add(describe(job));
        }
        return out;
    }

    private static Map<String, Object> describe(ProcessJob job) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("job", job.id());
        m.put("function", job.request().function());
        m.put("mode", job.request().mode().label());
        m.put("keysSeen", job.keysSeen());
        m.put("recordsOut", job.recordsOut());
        m.put("errors", job.errors());
        return m;
    }

    private static Outcome json(Object value) throws IOException {
        return new Outcome.Body(withNewline(JSON.writeValueAsBytes(value)), "application/json");
    }

    private static byte[] withNewline(byte[] json) {
        byte[] out = java.util.Arrays.copyOf(json, json.length + 1);
        out[json.length] = '\n';
        return out;
    }

    private static String abbreviate(@Nullable String s) {
        return s == null ? "" : s.length() <= 64 ? s : s.substring(0, 64) + "...";
    }
}
