package io.ringbase.faults;

import io.ringbase.faults.checker.Verdict;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one fault's run found.
 *
 * @param fault    the row's name (the nemesis, and what the run did besides)
 * @param verdicts checker name to verdict, in report column order; empty if the run could not check
 * @param ok       operations that completed OK
 * @param failed   operations that certainly failed
 * @param unknown  operations of unknown outcome
 * @param notes    what else the run saw, each informational or a failure ({@link Note.Severity})
 * @param faultLatency the latency of the clients' operations invoked while the fault was injected, by the
 *                 node they went through: {@code "n0 p50 1.2 / p99 8.5 ms (n ops), ..."}; empty if none
 */
public record FaultResult(
        String fault,
        Map<String, Verdict> verdicts,
        int ok,
        int failed,
        int unknown,
        List<Note> notes,
        String faultLatency) {

    public FaultResult {
        verdicts = new LinkedHashMap<>(verdicts);
        notes = List.copyOf(notes);
    }

    /** A run that ended in an exception before it could check anything. */
    static FaultResult runFailed(String fault, Throwable e) {
        return new FaultResult(fault, Map.of(), 0, 0, 0, List.of(Note.failure("the run itself failed: " + e)), "");
    }

    /**
     * Whether the run passed: it checked (some verdicts), every checker passed, and no note is a
     * {@link Note.Severity#FAILURE}.
     */
    public boolean pass() {
        return !verdicts.isEmpty()
                && verdicts.values().stream().allMatch(Verdict::pass)
                && notes.stream().noneMatch(Note::isFailure);
    }

    /** The failure notes, in the order they were made. */
    public List<Note> failures() {
        return notes.stream().filter(Note::isFailure).toList();
    }
}
