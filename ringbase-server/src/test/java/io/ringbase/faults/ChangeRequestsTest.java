package io.ringbase.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.faults.history.Op;
import io.ringbase.faults.nemesis.ChangeWindow;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The counts of the clients' requests during membership changes; nothing here starts a node. */
class ChangeRequestsTest {

    private static final long MS = 1_000_000;

    private static Op op(String process, long invokeMs, long completeMs, Op.Outcome outcome) {
        return new Op(process, Op.Fn.WRITE, "r-1", "v", invokeMs * MS, completeMs * MS, outcome, "504 timeout");
    }

    @Test
    void aRequestThatFailsDuringAChangeWithNoOtherFaultIsAFailureWithTheRequestQuoted() {
        List<ChangeWindow> windows = List.of(new ChangeWindow("join n3", 100 * MS, 200 * MS, false));
        List<Op> ops = List.of(
                op("c0", 50, 60, Op.Outcome.FAIL), // before the change
                op("c1", 90, 110, Op.Outcome.OK),
                op("c2", 150, 4_150, Op.Outcome.UNKNOWN),
                op("final@n0", 150, 160, Op.Outcome.FAIL)); // the final reads are not the clients'
        List<Note> notes = ChangeRequests.notes(windows, ops, 0);
        assertThat(notes).hasSize(2);
        assertThat(notes.getFirst().isFailure()).isFalse();
        assertThat(notes.getFirst().text()).contains("join n3 0.1 s").contains(": 2, failed 0, unknown 1");
        assertThat(notes.get(1).isFailure()).isTrue();
        assertThat(notes.get(1).text())
                .startsWith("0 client requests failed and 1 ended unknown")
                .contains("c2");
    }

    @Test
    void aRequestThatFailsWhileAnotherFaultOverlapsTheChangeIsOnlyCounted() {
        List<ChangeWindow> windows = List.of(
                new ChangeWindow("join n3 (n1 SIGKILLed and restarted)", 100 * MS, 200 * MS, true),
                new ChangeWindow("decommission n3", 300 * MS, 400 * MS, false));
        List<Op> ops = List.of(op("c0", 120, 130, Op.Outcome.FAIL), op("c1", 310, 320, Op.Outcome.OK));
        List<Note> notes = ChangeRequests.notes(windows, ops, 0);
        assertThat(notes).singleElement().satisfies(n -> {
            assertThat(n.isFailure()).isFalse();
            assertThat(n.text())
                    .contains("with no other fault: 1, failed 0, unknown 0")
                    .contains("with a killed node: 1, failed 1, unknown 0");
        });
    }

    @Test
    void aRunWithoutMembershipChangesHasNoSuchNotes() {
        assertThat(ChangeRequests.notes(List.of(), List.of(op("c0", 1, 2, Op.Outcome.FAIL)), 0))
                .isEmpty();
    }
}
