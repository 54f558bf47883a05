package io.ringbase.faults;

import io.ringbase.faults.checker.Verdict;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** The fault x checker table of a suite run, in Markdown. */
final class Report {

    static final List<String> CHECKERS =
            List.of(FaultRun.LINEARIZABLE, FaultRun.NO_LOST_WRITES, FaultRun.NO_RESURRECTION, FaultRun.SCANS_COMPLETE);

    private Report() {}

    static String markdown(SuiteSettings s, List<FaultResult> results, long seconds) {
        StringBuilder b = new StringBuilder("# Fault-injection suite report\n\n");
        b.append(String.format(
                "%s; %d nodes, %d clients, %d s per fault (%d ms faults, %d ms healthy between), "
                        + "register keys live %d ms, seed %d, %d s in all. A row passes when every checker passes and no "
                        + "note is a failure. Cells: pass/FAIL (what was checked). Operations: ok/failed/unknown.%n%n",
                Instant.now(),
                SuiteSettings.NODES,
                s.clients(),
                s.faultSeconds(),
                s.activeMs(),
                s.quietMs(),
                s.registerKeyLifetimeMs(),
                s.seed(),
                seconds));
        b.append("| fault | result |");
        for (String c : CHECKERS) {
            b.append(' ').append(c).append(" |");
        }
        b.append(" operations | latency during faults, by coordinator | notes |\n|---|");
        b.append("---|".repeat(CHECKERS.size() + 1)).append("---|---|---|\n");
        for (FaultResult r : results) {
            b.append("| ")
                    .append(r.fault())
                    .append(" | ")
                    .append(r.pass() ? "pass" : "**FAIL**")
                    .append(" |");
            for (String c : CHECKERS) {
                Verdict v = r.verdicts().get(c);
                b.append(' ')
                        .append(v == null ? "not run" : (v.pass() ? "pass" : "**FAIL**") + " (" + v.summary() + ")")
                        .append(" |");
            }
            b.append(' ')
                    .append(r.ok())
                    .append('/')
                    .append(r.failed())
                    .append('/')
                    .append(r.unknown())
                    .append(" | ")
                    .append(r.faultLatency())
                    .append(" | ")
                    .append(notes(r.notes()))
                    .append(" |\n");
        }
        return b.toString();
    }

    /** The notes of one row, failures first and marked, each made safe for a table cell. */
    static String notes(List<Note> notes) {
        List<String> parts = new ArrayList<>();
        for (Note n : notes) {
            if (n.isFailure()) {
                parts.add("**FAILURE**: " + n.text());
            }
        }
        for (Note n : notes) {
            if (!n.isFailure()) {
                parts.add(n.text());
            }
        }
        return String.join("; ", parts).replace("|", "\\|").replace("\n", " ");
    }
}
