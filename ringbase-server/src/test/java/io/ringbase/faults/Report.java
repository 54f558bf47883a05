package io.ringbase.faults;

import io.ringbase.faults.checker.Verdict;
import java.time.Instant;
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
                        + "seed %d, %d s in all. Cells: pass/FAIL (what was checked). Operations: ok/failed/unknown.%n%n",
                Instant.now(),
                SuiteSettings.NODES,
                s.clients(),
                s.faultSeconds(),
                s.activeMs(),
                s.quietMs(),
                s.seed(),
                seconds));
        b.append("| fault |");
        for (String c : CHECKERS) {
            b.append(' ').append(c).append(" |");
        }
        b.append(" operations | latency during faults, by coordinator | notes |\n|---|");
        b.append("---|".repeat(CHECKERS.size())).append("---|---|---|\n");
        for (FaultResult r : results) {
            b.append("| ").append(r.fault()).append(" |");
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
                    .append(String.join("; ", r.notes()).replace("|", "\\|").replace("\n", " "))
                    .append(" |\n");
        }
        return b.toString();
    }
}
