package io.ringbase.faults.checker;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.faults.history.Op;
import io.ringbase.faults.history.Op.Fn;
import io.ringbase.faults.history.Op.Outcome;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The set workload's final-state checkers on hand-made outcomes. */
class SetCheckersTest {

    static Op op(Fn f, String key, String value, Outcome outcome) {
        return new Op("c", f, key, value, 0, 1, outcome, null);
    }

    static final List<Op> OPS = List.of(
            op(Fn.WRITE, "acked", "v1", Outcome.OK),
            op(Fn.WRITE, "deleted", "v2", Outcome.OK),
            op(Fn.DELETE, "deleted", null, Outcome.OK),
            op(Fn.WRITE, "maybe-deleted", "v3", Outcome.OK),
            op(Fn.DELETE, "maybe-deleted", null, Outcome.UNKNOWN),
            op(Fn.WRITE, "maybe-written", "v4", Outcome.UNKNOWN),
            op(Fn.WRITE, "failed", "v5", Outcome.FAIL));

    static Map<String, FinalRead> reads(String... keyValue) {
        Map<String, FinalRead> out = new HashMap<>();
        for (int i = 0; i < keyValue.length; i += 2) {
            out.put(keyValue[i], new FinalRead(keyValue[i], true, keyValue[i + 1], "200"));
        }
        return out;
    }

    @Test
    void anAcknowledgedWriteReadBackPasses() {
        assertThat(SetCheckers.noLostWrites(OPS, reads("acked", "v1", "maybe-deleted", null))
                        .pass())
                .isTrue();
    }

    @Test
    void anAcknowledgedWriteReadAsMissingIsLost() {
        Verdict v = SetCheckers.noLostWrites(OPS, reads("acked", null));
        assertThat(v.pass()).isFalse();
        assertThat(v.problems()).singleElement().asString().contains("acked").contains("lost");
    }

    @Test
    void anUnreadableKeyIsAProblemNotAPass() {
        Map<String, FinalRead> r = Map.of("acked", new FinalRead("acked", false, null, "504 timeout"));
        assertThat(SetCheckers.noLostWrites(OPS, r).pass()).isFalse();
    }

    @Test
    void aDeletedKeyThatComesBackIsResurrected() {
        assertThat(SetCheckers.noResurrection(OPS, reads("deleted", null)).pass())
                .isTrue();
        Verdict v = SetCheckers.noResurrection(OPS, reads("deleted", "v2"));
        assertThat(v.pass()).isFalse();
        assertThat(v.problems()).singleElement().asString().contains("came back");
    }

    @Test
    void aCompleteScanHoldsEveryAcknowledgedKeyAndNoDeletedOrFailedOne() {
        Map<String, Map<String, String>> scans = new HashMap<>();
        scans.put("n1", Map.of("acked", "v1", "maybe-written", "v4"));
        scans.put("n2", Map.of("acked", "v1", "maybe-deleted", "v3"));
        assertThat(SetCheckers.scansComplete(OPS, scans).pass()).isTrue();
    }

    @Test
    void aScanMissingAKeyOrHoldingADeletedOneOrAFailedOneFails() {
        Map<String, Map<String, String>> scans = new HashMap<>();
        scans.put("n1", Map.of());
        scans.put("n2", Map.of("acked", "v1", "deleted", "v2", "failed", "v5", "stranger", "x"));
        scans.put("n3", null);
        Verdict v = SetCheckers.scansComplete(OPS, scans);
        assertThat(v.pass()).isFalse();
        assertThat(String.join("\n", v.problems()))
                .contains("n1: acked missing")
                .contains("deleted deleted present")
                .contains("failed, present")
                .contains("no client wrote")
                .contains("scan through n3 failed");
    }
}
