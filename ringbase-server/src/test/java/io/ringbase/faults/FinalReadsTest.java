package io.ringbase.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.faults.client.NodeApi;
import io.ringbase.faults.history.Op;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Final reads: retried within a budget, and a read that keeps failing fails the run, naming its key. */
class FinalReadsTest {

    static final NodeApi.Answer OK = new NodeApi.Answer(Op.Outcome.OK, "v1", "200");
    static final NodeApi.Answer REFUSED = new NodeApi.Answer(Op.Outcome.FAIL, null, "connection refused");

    final List<Note> notes = new ArrayList<>();

    @Test
    void aReadThatFailsThenSucceedsIsRetriedAndIsNoFailure() {
        FinalReads reads = new FinalReads(2_000, 2_000, 10, notes);
        AtomicInteger calls = new AtomicInteger();
        NodeApi.Answer a =
                reads.read("final read of r-0-1 through n1", () -> calls.incrementAndGet() < 3 ? REFUSED : OK);
        reads.finish();
        assertThat(a).isEqualTo(OK);
        assertThat(calls).hasValue(3);
        assertThat(notes).noneMatch(Note::isFailure);
        assertThat(notes).extracting(Note::text).containsExactly("1 final reads succeeded after a retry");
    }

    @Test
    void aReadThatNeverSucceedsIsAFailureNamingItsKeyAndNode() {
        FinalReads reads = new FinalReads(200, 200, 10, notes);
        NodeApi.Answer a = reads.read("final read of s-c1-7 through n2", () -> REFUSED);
        assertThat(a.outcome()).isEqualTo(Op.Outcome.FAIL);
        assertThat(notes).singleElement().satisfies(n -> {
            assertThat(n.isFailure()).isTrue();
            assertThat(n.text()).startsWith("final read of s-c1-7 through n2 failed: connection refused (");
        });
    }

    @Test
    void onceTheBudgetIsSpentLaterReadsAreNotTriedAndAreCountedAsFailures() {
        FinalReads reads = new FinalReads(100, 100, 10, notes);
        reads.read("final read of a through n0", () -> REFUSED);
        AtomicInteger later = new AtomicInteger();
        NodeApi.Answer b = reads.read("final read of b through n1", () -> {
            later.incrementAndGet();
            return OK;
        });
        reads.finish();
        assertThat(later).hasValue(0); // a broken cluster costs one budget, not one timeout per key
        assertThat(b.outcome()).isEqualTo(Op.Outcome.FAIL);
        assertThat(notes)
                .filteredOn(Note::isFailure)
                .extracting(Note::text)
                .containsExactly(notes.get(0).text(), "1 final reads not tried: the final-read retry budget was spent");
    }

    @Test
    void aScanThatThrowsIsRetriedAndOneThatKeepsThrowingIsNull() {
        FinalReads reads = new FinalReads(1_000, 100, 10, notes);
        AtomicInteger calls = new AtomicInteger();
        Map<String, String> scan = reads.call("scan through n0", () -> {
            if (calls.incrementAndGet() < 2) {
                throw new IOException("scan cut short");
            }
            return Map.of("s-c0-1", "c0-1");
        });
        assertThat(scan).containsEntry("s-c0-1", "c0-1");
        Map<String, String> never = reads.call("scan through n1", () -> {
            throw new IOException("scan answered HTTP/1.1 504");
        });
        assertThat(never).isNull();
        assertThat(notes)
                .filteredOn(Note::isFailure)
                .extracting(Note::text)
                .singleElement()
                .asString()
                .startsWith("scan through n1 failed: scan answered HTTP/1.1 504 (");
    }

    @Test
    void eachFailingReadIsNamedWhileTheBudgetLastsThenTheRestAreCounted() {
        // 100 ms of retries per read, 500 ms in all: about five failing reads are tried, the others not
        FinalReads reads = new FinalReads(500, 100, 10, notes);
        for (int i = 0; i < 10; i++) {
            reads.read("final read of k" + i + " through n0", () -> REFUSED);
        }
        reads.finish();
        List<String> failures =
                notes.stream().filter(Note::isFailure).map(Note::text).toList();
        assertThat(failures.subList(0, failures.size() - 1))
                .hasSizeBetween(2, 6)
                .allMatch(
                        t -> t.matches("final read of k\\d through n0 failed: connection refused \\(\\d+ attempts\\)"));
        assertThat(failures.getLast())
                .isEqualTo(
                        (10 - (failures.size() - 1)) + " final reads not tried: the final-read retry budget was spent");
    }
}
