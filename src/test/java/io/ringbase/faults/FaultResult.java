package io.ringbase.faults;

import io.ringbase.faults.checker.Verdict;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one fault's run found.
 *
 * @param fault    the nemesis' name
 * @param verdicts checker name to verdict, in report column order
 * @param ok       operations that completed OK
 * @param failed   operations that certainly failed
 * @param unknown  operations of unknown outcome
 * @param notes    anything unexpected (a node that died by itself, a cluster that did not heal)
 */
public record FaultResult(String fault, Map<String, Verdict> verdicts, int ok, int failed, int unknown,
                          List<String> notes) {

    public FaultResult {
        verdicts = new LinkedHashMap<>(verdicts);
        notes = List.copyOf(notes);
    }

    public boolean pass() {
        return verdicts.values().stream().allMatch(Verdict::pass);
    }
}
