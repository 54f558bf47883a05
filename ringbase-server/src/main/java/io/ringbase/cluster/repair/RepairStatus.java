package io.ringbase.cluster.repair;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Locale;

/**
 * What {@code GET /v0/admin/repair} reports: whether a repair runs, the progress of the current run (or
 * of the last one when idle), and the last finished run.
 *
 * @param state    {@link State#RUNNING} while a run is under way
 * @param progress the current run while running; when idle the last finished run, or {@link Run#NONE}
 * @param lastRun  the last finished run, or {@code null} if none has finished since the node started
 */
public record RepairStatus(State state, Run progress, Run lastRun) {

    /** Whether a repair is under way. */
    public enum State {
        IDLE,
        RUNNING
    }

    /** How a finished run ended. */
    public enum Outcome {
        /** Every range of every peer was compared and streamed. */
        OK,
        /** Some ranges failed (an unreachable peer, an error answer); see {@link Run#lastError}. */
        PARTIAL,
        /** The node shut down during the run. */
        ABORTED
    }

    /**
     * One repair run.
     *
     * @param startedAtMs  start, Unix epoch ms (0 for {@link #NONE})
     * @param finishedAtMs end, Unix epoch ms, or 0 while running
     * @param rangesDone   (peer, range) pairs finished, successfully or not
     * @param rangesFailed of those, the ones that failed
     * @param rangesTotal  peers x 16
     * @param keysReceived entries pulled from peers that were newer than or missing from the local copy
     * @param keysSent     entries pushed to peers that were newer than or missing from their copy
     * @param outcome      how it ended, or {@code null} while running
     * @param lastError    the last failure, for operators, or {@code null}
     */
    public record Run(
            long startedAtMs,
            long finishedAtMs,
            int rangesDone,
            int rangesFailed,
            int rangesTotal,
            long keysReceived,
            long keysSent,
            Outcome outcome,
            String lastError) {

        /** The progress reported before any run. */
        public static final Run NONE = new Run(0, 0, 0, 0, 0, 0, 0, null, null);
    }

    /**
     * This status as a small JSON object:
     * <pre>
     * {"state":"idle"|"running","rangesDone":n,"rangesFailed":n,"rangesTotal":n,"keysReceived":n,
     *  "keysSent":n,"startedAtMs":n,"lastRun":null|{"startedAtMs":n,"finishedAtMs":n,"rangesDone":n,
     *  "rangesFailed":n,"rangesTotal":n,"keysReceived":n,"keysSent":n,"outcome":"ok"|"partial"|"aborted",
     *  "lastError":null|"..."}}
     * </pre>
     */
    public String toJson() {
        return tree().toString();
    }

    /** {@link #toJson()} as a JSON tree (what {@code GET /v0/status} nests as {@code repair}). */
    public ObjectNode tree() {
        ObjectNode out = JsonNodeFactory.instance.objectNode();
        out.put("state", state.name().toLowerCase(Locale.ROOT));
        counters(out, progress);
        out.put("startedAtMs", progress.startedAtMs());
        if (lastRun == null) {
            out.putNull("lastRun");
        } else {
            ObjectNode last = out.putObject("lastRun");
            last.put("startedAtMs", lastRun.startedAtMs());
            last.put("finishedAtMs", lastRun.finishedAtMs());
            counters(last, lastRun);
            last.put(
                    "outcome",
                    lastRun.outcome() == null ? null : lastRun.outcome().name().toLowerCase(Locale.ROOT));
            last.put("lastError", lastRun.lastError());
        }
        return out;
    }

    private static void counters(ObjectNode out, Run run) {
        out.put("rangesDone", run.rangesDone());
        out.put("rangesFailed", run.rangesFailed());
        out.put("rangesTotal", run.rangesTotal());
        out.put("keysReceived", run.keysReceived());
        out.put("keysSent", run.keysSent());
    }
}
