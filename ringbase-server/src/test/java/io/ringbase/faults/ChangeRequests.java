package io.ringbase.faults;

import io.ringbase.faults.history.Op;
import io.ringbase.faults.nemesis.ChangeWindow;
import java.util.ArrayList;
import java.util.List;

/**
 * The clients' requests during a run's membership changes, counted apart from the rest: a join or a
 * decommission is no fault, so a request that fails while one runs with no other fault injected is a finding
 * of the change itself (a {@link Note.Severity#FAILURE}), with examples; those during a change that another
 * fault overlapped are only counted.
 */
final class ChangeRequests {

    /** Failed requests quoted in a failure note. */
    static final int EXAMPLES = 5;

    private ChangeRequests() {}

    /** What the requests of one kind of window came to. */
    private record Counts(int total, int failed, int unknown, List<Op> examples) {}

    /**
     * The notes on the clients' operations ({@code ops}, final reads left out) that overlap the
     * {@code windows}: one informational note with the figures, and a failure note if any request failed or
     * ended unknown in a window without another fault. None if there are no windows.
     *
     * @param originNanos the history's origin, for the examples' times
     */
    static List<Note> notes(List<ChangeWindow> windows, List<Op> ops, long originNanos) {
        if (windows.isEmpty()) {
            return List.of();
        }
        List<ChangeWindow> alone =
                windows.stream().filter(w -> !w.faultInjected()).toList();
        List<ChangeWindow> withFault =
                windows.stream().filter(ChangeWindow::faultInjected).toList();
        Counts a = count(alone, ops);
        Counts f = count(withFault, ops);
        List<String> spans = new ArrayList<>();
        for (ChangeWindow w : windows) {
            spans.add(String.format("%s %.1f s", w.what(), (w.endNanos() - w.startNanos()) / 1e9));
        }
        StringBuilder info = new StringBuilder(String.format(
                "membership changes: %s; client requests during them with no other fault: %d, failed %d, "
                        + "unknown %d",
                String.join(", ", spans), a.total(), a.failed(), a.unknown()));
        if (!withFault.isEmpty()) {
            info.append(String.format(
                    "; during a change with a killed node: %d, failed %d, unknown %d",
                    f.total(), f.failed(), f.unknown()));
        }
        List<Note> out = new ArrayList<>();
        out.add(Note.info(info.toString()));
        if (a.failed() + a.unknown() > 0) {
            List<String> lines = new ArrayList<>();
            for (Op op : a.examples()) {
                lines.add(op.toLine(originNanos).strip().replaceAll("\\s+", " "));
            }
            out.add(Note.failure(String.format(
                    "%d client requests failed and %d ended unknown during membership changes with no other fault "
                            + "(the history's times, ms): %s",
                    a.failed(), a.unknown(), String.join(" / ", lines))));
        }
        return out;
    }

    /** The client operations (not the final reads) that overlap any of {@code windows}. */
    private static Counts count(List<ChangeWindow> windows, List<Op> ops) {
        int total = 0;
        int failed = 0;
        int unknown = 0;
        List<Op> examples = new ArrayList<>();
        for (Op op : ops) {
            if (op.process().startsWith("final") || !overlaps(op, windows)) {
                continue;
            }
            total++;
            switch (op.outcome()) {
                case OK -> {}
                case FAIL -> failed++;
                case UNKNOWN -> unknown++;
            }
            if (op.outcome() != Op.Outcome.OK && examples.size() < EXAMPLES) {
                examples.add(op);
            }
        }
        return new Counts(total, failed, unknown, examples);
    }

    private static boolean overlaps(Op op, List<ChangeWindow> windows) {
        for (ChangeWindow w : windows) {
            if (op.invokeNanos() <= w.endNanos() && op.completeNanos() >= w.startNanos()) {
                return true;
            }
        }
        return false;
    }
}
