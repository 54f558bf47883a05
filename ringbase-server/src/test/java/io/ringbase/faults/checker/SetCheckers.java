package io.ringbase.faults.checker;

import io.ringbase.faults.history.Op;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The checkers of the set workload's final state (each key written once, some deleted once):
 * <ul>
 *   <li>{@link #noLostWrites}: every acknowledged write that no delete may have removed is read back
 *       with its value by a quorum read after healing;</li>
 *   <li>{@link #noResurrection}: every acknowledged delete reads as absent after anti-entropy repair ran
 *       on every node;</li>
 *   <li>{@link #scansComplete}: a range scan through each node returns every key that must exist, with
 *       its value, and none that was deleted or never written.</li>
 * </ul>
 */
public final class SetCheckers {

    /** Problems listed per verdict at most (the count is always exact). */
    static final int MAX_LISTED = 50;

    private SetCheckers() {}

    /** Checks {@code reads} (one per key, after healing) against the acknowledged writes of {@code ops}. */
    public static Verdict noLostWrites(List<Op> ops, Map<String, FinalRead> reads) {
        List<String> problems = new ArrayList<>();
        int checked = 0;
        for (Map.Entry<String, SetOps.Fate> e : SetOps.fates(ops).entrySet()) {
            SetOps.Fate fate = e.getValue();
            if (!fate.mustExist()) {
                continue;
            }
            checked++;
            FinalRead r = reads.get(e.getKey());
            if (r == null || !r.ok()) {
                problems.add(e.getKey() + ": acknowledged write not readable after healing: "
                        + (r == null ? "not read" : r.note()));
            } else if (!Objects.equals(r.value(), fate.write().value())) {
                problems.add(e.getKey() + ": acknowledged write of "
                        + fate.write().value() + " lost, read " + (r.value() == null ? "404" : r.value()));
            }
        }
        return verdict(problems, checked + " acknowledged writes");
    }

    /** Checks {@code reads} (after repair) against the acknowledged deletes of {@code ops}. */
    public static Verdict noResurrection(List<Op> ops, Map<String, FinalRead> reads) {
        List<String> problems = new ArrayList<>();
        int checked = 0;
        for (Map.Entry<String, SetOps.Fate> e : SetOps.fates(ops).entrySet()) {
            if (!e.getValue().mustBeGone()) {
                continue;
            }
            checked++;
            FinalRead r = reads.get(e.getKey());
            if (r == null || !r.ok()) {
                problems.add(
                        e.getKey() + ": deleted key not readable after repair: " + (r == null ? "not read" : r.note()));
            } else if (r.value() != null) {
                problems.add(e.getKey() + ": deleted key came back after repair with " + r.value());
            }
        }
        return verdict(problems, checked + " acknowledged deletes");
    }

    /**
     * Checks each node's scan of the set keys' range.
     *
     * @param scans node name to the keys and values its scan returned, or {@code null} if the scan failed
     */
    public static Verdict scansComplete(List<Op> ops, Map<String, Map<String, String>> scans) {
        List<String> problems = new ArrayList<>();
        Map<String, SetOps.Fate> fates = SetOps.fates(ops);
        int required = 0;
        for (SetOps.Fate f : fates.values()) {
            required += f.mustExist() ? 1 : 0;
        }
        for (Map.Entry<String, Map<String, String>> scan : scans.entrySet()) {
            String node = scan.getKey();
            Map<String, String> seen = scan.getValue();
            if (seen == null) {
                problems.add("scan through " + node + " failed");
                continue;
            }
            for (Map.Entry<String, SetOps.Fate> e : fates.entrySet()) {
                SetOps.Fate fate = e.getValue();
                String got = seen.get(e.getKey());
                if (fate.mustExist() && !Objects.equals(got, fate.write().value())) {
                    problems.add("scan through " + node + ": " + e.getKey() + " "
                            + (got == null
                                    ? "missing"
                                    : "has " + got + " instead of "
                                            + fate.write().value()));
                } else if (fate.mustBeGone() && got != null) {
                    problems.add("scan through " + node + ": deleted " + e.getKey() + " present with " + got);
                } else if (fate.neverWritten() && got != null) {
                    problems.add(
                            "scan through " + node + ": " + e.getKey() + ", whose write failed, present with " + got);
                }
            }
            for (String key : seen.keySet()) {
                if (!fates.containsKey(key)) {
                    problems.add("scan through " + node + ": key " + key + " that no client wrote");
                }
            }
        }
        return verdict(problems, scans.size() + " scans x " + required + " keys");
    }

    private static Verdict verdict(List<String> problems, String what) {
        if (problems.isEmpty()) {
            return Verdict.pass(what);
        }
        List<String> listed =
                problems.size() <= MAX_LISTED ? problems : new ArrayList<>(problems.subList(0, MAX_LISTED));
        if (problems.size() > MAX_LISTED) {
            listed.add("... and " + (problems.size() - MAX_LISTED) + " more");
        }
        return Verdict.fail(problems.size() + " problems in " + what, listed);
    }
}
