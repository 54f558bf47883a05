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
 * @param faultLatency the latency of the clients' operations invoked while the fault was injected, by the
 *                 node they went through: {@code "n0 p50 1.2 / p99 8.5 ms (n ops), ..."}; empty if none
 */
public record FaultResult(
        String fault,
        Map<String, Verdict> verdicts,
        int ok,
        int failed,
        int unknown,
        List<String> notes,
        String faultLatency) {

    public FaultResult {
        verdicts = new LinkedHashMap<>(verdicts);
        notes = List.copyOf(notes);
    }

    public boolean pass() {
        return verdicts.values().stream().allMatch(Verdict::pass);
    }
}
