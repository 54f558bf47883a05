package io.ringbase.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.faults.checker.Verdict;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** When a fault's run passes, and how the report shows one that does not. */
class FaultResultTest {

    static final Map<String, Verdict> ALL_PASS = Map.of(FaultRun.LINEARIZABLE, Verdict.pass("3 keys, 40 ops"));

    static FaultResult result(Map<String, Verdict> verdicts, Note... notes) {
        return new FaultResult("kill", verdicts, 10, 0, 0, List.of(notes), "");
    }

    @Test
    void passingCheckersAndInformationalNotesPass() {
        assertThat(result(ALL_PASS, Note.info("repair after healing moved 12 keys"))
                        .pass())
                .isTrue();
    }

    @Test
    void aFailureNoteFailsTheRunThoughEveryCheckerPassed() {
        FaultResult r =
                result(ALL_PASS, Note.info("figures"), Note.failure("n2 exited by itself: pid 7 exited with code 1"));
        assertThat(r.pass()).isFalse();
        assertThat(r.failures())
                .extracting(Note::text)
                .containsExactly("n2 exited by itself: pid 7 exited with code 1");
    }

    @Test
    void aFailingCheckerFailsTheRun() {
        assertThat(result(Map.of(FaultRun.LINEARIZABLE, Verdict.fail("1 of 3 keys", List.of("key r-0-1: ..."))))
                        .pass())
                .isFalse();
    }

    @Test
    void aRunThatCheckedNothingFails() {
        assertThat(result(Map.of()).pass()).isFalse();
        FaultResult crashed =
                FaultResult.runFailed("pause", new IllegalStateException("node 1 exited before it was ready"));
        assertThat(crashed.pass()).isFalse();
        assertThat(crashed.failures()).singleElement().asString().contains("node 1 exited before it was ready");
    }

    @Test
    void theReportMarksAFailedRowAndItsFailureNotesFirst() {
        SuiteSettings s = new SuiteSettings(8, 1_000, 2_500, 5, Path.of("target", "faults"), 1);
        String report = Report.markdown(
                s,
                List.of(
                        result(ALL_PASS, Note.info("repair after healing moved 0 keys")),
                        result(
                                ALL_PASS,
                                Note.info("3 final reads succeeded after a retry"),
                                Note.failure(
                                        "final read of r-1-2 through n0 failed: connection refused (5 attempts)"))),
                60);
        List<String> rows = report.lines().filter(l -> l.startsWith("| kill |")).toList();
        assertThat(rows).hasSize(2);
        assertThat(rows.get(0)).startsWith("| kill | pass |");
        assertThat(rows.get(1))
                .startsWith("| kill | **FAIL** |")
                .contains("**FAILURE**: final read of r-1-2 through n0 failed: connection refused (5 attempts); "
                        + "3 final reads succeeded after a retry");
    }
}
