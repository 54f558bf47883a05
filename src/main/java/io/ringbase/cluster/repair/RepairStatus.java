package io.ringbase.cluster.repair;

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
        IDLE, RUNNING
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
    public record Run(long startedAtMs, long finishedAtMs, int rangesDone, int rangesFailed, int rangesTotal,
                      long keysReceived, long keysSent, Outcome outcome, String lastError) {

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
        StringBuilder out = new StringBuilder(256);
        out.append("{\"state\":\"").append(state.name().toLowerCase(Locale.ROOT)).append('"');
        counters(out, progress);
        out.append(",\"startedAtMs\":").append(progress.startedAtMs());
        out.append(",\"lastRun\":");
        if (lastRun == null) {
            out.append("null");
        } else {
            out.append("{\"startedAtMs\":").append(lastRun.startedAtMs());
            out.append(",\"finishedAtMs\":").append(lastRun.finishedAtMs());
            counters(out, lastRun);
            out.append(",\"outcome\":");
            string(out, lastRun.outcome() == null ? null : lastRun.outcome().name().toLowerCase(Locale.ROOT));
            out.append(",\"lastError\":");
            string(out, lastRun.lastError());
            out.append('}');
        }
        return out.append('}').toString();
    }

    private static void counters(StringBuilder out, Run run) {
        out.append(",\"rangesDone\":").append(run.rangesDone());
        out.append(",\"rangesFailed\":").append(run.rangesFailed());
        out.append(",\"rangesTotal\":").append(run.rangesTotal());
        out.append(",\"keysReceived\":").append(run.keysReceived());
        out.append(",\"keysSent\":").append(run.keysSent());
    }

    /** A JSON string literal (RFC 8259 section 7), or {@code null}. */
    private static void string(StringBuilder out, String s) {
        if (s == null) {
            out.append("null");
            return;
        }
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
