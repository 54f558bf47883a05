package io.ringbase.faults.checker;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.faults.history.Op;
import io.ringbase.faults.history.Op.Fn;
import io.ringbase.faults.history.Op.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The WGL search on hand-made register histories, linearizable and not, with failed and unknown operations. */
class LinearizabilityTest {

    static Op write(String p, String v, long from, long to) {
        return new Op(p, Fn.WRITE, "k", v, from, to, Outcome.OK, null);
    }

    static Op delete(String p, long from, long to) {
        return new Op(p, Fn.DELETE, "k", null, from, to, Outcome.OK, null);
    }

    static Op read(String p, String v, long from, long to) {
        return new Op(p, Fn.READ, "k", v, from, to, Outcome.OK, null);
    }

    static Op cas(String p, String expected, String v, long from, long to) {
        return new Op(p, Fn.CAS, "k", Op.cas(expected, v), from, to, Outcome.OK, null);
    }

    static Op refused(String p, String expected, String v, long from, long to) {
        return new Op(p, Fn.CAS_REFUSED, "k", Op.cas(expected, v), from, to, Outcome.OK, null);
    }

    @Test
    void compareAndSetChainsAreLinearizable() {
        assertThat(linearizable(
                        cas("a", null, "1", 0, 10),
                        cas("b", "1", "2", 20, 30),
                        refused("c", "1", "3", 25, 40),
                        read("d", "2", 50, 60)))
                .isTrue();
    }

    @Test
    void twoCompareAndSetsFromTheSameValueCannotBothApply() {
        assertThat(linearizable(cas("a", null, "1", 0, 10), cas("b", "1", "2", 20, 30), cas("c", "1", "3", 20, 30)))
                .isFalse();
    }

    @Test
    void aRefusalWhileTheExpectedValueWasCertainlyThereIsNot() {
        assertThat(linearizable(cas("a", null, "1", 0, 10), refused("b", "1", "2", 20, 30), read("c", "1", 40, 50)))
                .isFalse();
    }

    @Test
    void anUnknownCompareAndSetCountsOnlyIfItsValueWasSeen() {
        Op lost = with(cas("b", "1", "2", 20, 30), Outcome.UNKNOWN);
        assertThat(linearizable(cas("a", null, "1", 0, 10), lost, read("c", "1", 40, 50)))
                .isTrue();
        assertThat(linearizable(cas("a", null, "1", 0, 10), lost, read("c", "2", 40, 50), cas("d", "2", "3", 60, 70)))
                .isTrue();
    }

    static Op with(Op op, Outcome outcome) {
        return new Op(op.process(), op.f(), op.key(), op.value(), op.invokeNanos(), op.completeNanos(), outcome, null);
    }

    static boolean linearizable(Op... ops) {
        Linearizability.KeyResult r = Linearizability.checkKey("k", List.of(ops), 1_000_000);
        assertThat(r.decided()).isTrue();
        return r.linearizable();
    }

    @Test
    void aReadOfTheLastCompletedWriteIsLinearizable() {
        assertThat(linearizable(write("a", "1", 0, 10), read("b", "1", 20, 30))).isTrue();
    }

    @Test
    void aReadOfNothingBeforeAnyWriteIsLinearizable() {
        assertThat(linearizable(read("b", null, 0, 5), write("a", "1", 10, 20))).isTrue();
    }

    @Test
    void aStaleReadAfterACompletedWriteIsNot() {
        assertThat(linearizable(write("a", "1", 0, 10), write("a", "2", 20, 30), read("b", "1", 40, 50)))
                .isFalse();
    }

    @Test
    void aReadOfAValueNobodyWroteIsNot() {
        assertThat(linearizable(write("a", "1", 0, 10), read("b", "9", 20, 30))).isFalse();
    }

    @Test
    void aReadConcurrentWithAWriteMayReturnTheOldOrTheNewValue() {
        assertThat(linearizable(write("a", "1", 0, 10), write("a", "2", 20, 60), read("b", "1", 30, 40)))
                .isTrue();
        assertThat(linearizable(write("a", "1", 0, 10), write("a", "2", 20, 60), read("b", "2", 30, 40)))
                .isTrue();
    }

    @Test
    void readsGoingBackwardsDuringAWriteAreNot() {
        // both reads overlap the write, but once one has returned the new value the later one cannot return the old
        assertThat(linearizable(
                        write("a", "1", 0, 10),
                        write("a", "2", 20, 100),
                        read("b", "2", 30, 40),
                        read("c", "1", 50, 60)))
                .isFalse();
        assertThat(linearizable(
                        write("a", "1", 0, 10),
                        write("a", "2", 20, 100),
                        read("b", "1", 30, 40),
                        read("c", "2", 50, 60)))
                .isTrue();
    }

    @Test
    void twoCompletedWritesFixTheFinalValueForLaterReads() {
        // w1 and w2 overlap, so either order is possible, but two later sequential reads must agree
        assertThat(linearizable(
                        write("a", "1", 0, 50),
                        write("b", "2", 10, 40),
                        read("c", "1", 60, 70),
                        read("c", "2", 80, 90)))
                .isFalse();
        assertThat(linearizable(
                        write("a", "1", 0, 50),
                        write("b", "2", 10, 40),
                        read("c", "1", 60, 70),
                        read("c", "1", 80, 90)))
                .isTrue();
    }

    @Test
    void aDeleteEmptiesTheRegister() {
        assertThat(linearizable(write("a", "1", 0, 10), delete("a", 20, 30), read("b", null, 40, 50)))
                .isTrue();
        assertThat(linearizable(write("a", "1", 0, 10), delete("a", 20, 30), read("b", "1", 40, 50)))
                .isFalse();
    }

    @Test
    void aFailedWriteNeverHappened() {
        assertThat(linearizable(
                        write("a", "1", 0, 10), with(write("a", "2", 20, 30), Outcome.FAIL), read("b", "1", 40, 50)))
                .isTrue();
        assertThat(linearizable(
                        write("a", "1", 0, 10), with(write("a", "2", 20, 30), Outcome.FAIL), read("b", "2", 40, 50)))
                .as("a read of a failed write's value")
                .isFalse();
    }

    @Test
    void anUnknownWriteMayTakeEffectLongAfterItsTimeout() {
        Op unknown = with(write("a", "2", 20, 30), Outcome.UNKNOWN);
        assertThat(linearizable(write("a", "1", 0, 10), unknown, read("b", "1", 40, 50), read("b", "2", 60, 70)))
                .as("seen only after a read that did not see it")
                .isTrue();
        assertThat(linearizable(write("a", "1", 0, 10), unknown, read("b", "1", 40, 50)))
                .as("or never")
                .isTrue();
    }

    @Test
    void anUnknownWriteTakesEffectOnlyOnce() {
        Op unknown = with(write("a", "2", 20, 30), Outcome.UNKNOWN);
        assertThat(linearizable(write("a", "1", 0, 10), unknown, read("b", "2", 40, 50), read("b", "1", 60, 70)))
                .isFalse();
    }

    @Test
    void anUnknownWriteCannotTakeEffectBeforeItWasInvoked() {
        Op unknown = with(write("a", "2", 40, 50), Outcome.UNKNOWN);
        assertThat(linearizable(write("a", "1", 0, 10), read("b", "2", 20, 30), unknown))
                .isFalse();
    }

    @Test
    void anUnknownDeleteMayExplainALater404() {
        Op unknown = with(delete("a", 20, 30), Outcome.UNKNOWN);
        assertThat(linearizable(write("a", "1", 0, 10), unknown, read("b", null, 100, 110)))
                .isTrue();
        assertThat(linearizable(write("a", "1", 0, 10), read("b", null, 100, 110)))
                .isFalse();
    }

    @Test
    void unknownAndFailedReadsAreIgnored() {
        assertThat(linearizable(
                        write("a", "1", 0, 10),
                        with(read("b", "zzz", 20, 30), Outcome.UNKNOWN),
                        with(read("b", "yyy", 40, 50), Outcome.FAIL)))
                .isTrue();
    }

    @Test
    void touchingOperationsCountAsConcurrent() {
        // the read is invoked at the very nanosecond the write completes: either order is allowed
        assertThat(linearizable(write("a", "1", 0, 10), write("a", "2", 20, 30), read("b", "1", 30, 40)))
                .isTrue();
    }

    @Test
    void aNonLinearizableKeyIsNamedWithItsLongestLinearizablePrefix() {
        Map<String, List<Op>> byKey =
                Map.of("k", List.of(write("a", "1", 0, 10), write("a", "2", 20, 30), read("b", "1", 40, 50)));
        Verdict v = Linearizability.check(byKey, 1_000_000);
        assertThat(v.pass()).isFalse();
        assertThat(v.problems())
                .singleElement()
                .asString()
                .contains("key k: not linearizable")
                .contains("WRITE 2");
    }

    @Test
    void aSearchPastItsStepBoundIsUndecidedNotPassed() {
        List<Op> ops = new ArrayList<>();
        for (int i = 0; i < 12; i++) { // a dozen overlapping writes and reads: many orders to try
            ops.add(write("w" + i, "v" + i, i, 1_000));
            ops.add(read("r" + i, "v" + (11 - i), i, 1_000));
        }
        ops.add(read("x", "nope", 2_000, 2_001));
        Linearizability.KeyResult r = Linearizability.checkKey("k", ops, 100);
        assertThat(r.decided()).isFalse();
        Verdict v = Linearizability.check(Map.of("k", ops), 100);
        assertThat(v.pass()).isFalse();
        assertThat(v.problems()).singleElement().asString().contains("undecided");
    }

    /**
     * Random histories of a real atomic register: each operation takes effect at one instant inside its
     * interval, so every such history is linearizable; some outcomes are then hidden as unknown.
     */
    @Test
    void randomHistoriesOfAnAtomicRegisterAreLinearizable() {
        Random random = new Random(7);
        for (int round = 0; round < 200; round++) {
            List<Op> ops = simulate(random, 5, 60);
            Linearizability.KeyResult r = Linearizability.checkKey("k", ops, 5_000_000);
            assertThat(r.decided()).as("round %d", round).isTrue();
            assertThat(r.linearizable()).as("round %d: %s", round, ops).isTrue();
        }
    }

    /**
     * Register keys live a whole fault window, so a key's history runs to thousands of operations, a tenth
     * of them unknown (each unknown write or delete may take effect at any later time): the search must
     * stay far below its bound of {@link Linearizability#DEFAULT_MAX_STEPS} steps per key.
     */
    @Test
    void historiesOfThousandsOfOperationsOnOneKeyStayCheapToSearch() {
        Random random = new Random(23);
        for (int round = 0; round < 5; round++) {
            List<Op> ops = simulate(random, 6, 3_000);
            Linearizability.KeyResult r = Linearizability.checkKey("k", ops, Linearizability.DEFAULT_MAX_STEPS / 100);
            assertThat(r.decided()).as("round %d: %d steps", round, r.steps()).isTrue();
            assertThat(r.linearizable()).as("round %d", round).isTrue();
        }
    }

    @Test
    void randomHistoriesWithOneReadCorruptedAreUsuallyCaught() {
        Random random = new Random(11);
        int caught = 0;
        for (int round = 0; round < 100; round++) {
            List<Op> ops = new ArrayList<>(simulate(random, 4, 40));
            // a read that returns a value written only later, sequentially after every other operation
            long end = ops.stream()
                    .mapToLong(Op::completeNanos)
                    .filter(t -> t < Long.MAX_VALUE)
                    .max()
                    .orElse(0);
            ops.add(write("late", "late-value", end + 100, end + 200));
            ops.add(read("early", "late-value", end + 10, end + 20));
            if (!Linearizability.checkKey("k", ops, 5_000_000).linearizable()) {
                caught++;
            }
        }
        assertThat(caught).isEqualTo(100);
    }

    /** {@code processes} clients doing {@code count} operations on an atomic register, times in ns. */
    static List<Op> simulate(Random random, int processes, int count) {
        long[] free = new long[processes];
        String value = null;
        List<Op> ops = new ArrayList<>();
        // schedule: pick a process, an invocation after its last completion, an effect point, a completion
        record Planned(int p, long invoke, long effect, long complete, int kind) {}
        List<Planned> plans = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int p = random.nextInt(processes);
            long invoke = free[p] + random.nextInt(20);
            long effect = invoke + 1 + random.nextInt(30);
            long complete = effect + 1 + random.nextInt(30);
            free[p] = complete + 1;
            plans.add(new Planned(p, invoke, effect, complete, random.nextInt(10)));
        }
        plans.sort(java.util.Comparator.comparingLong(Planned::effect));
        int seq = 0;
        for (Planned pl : plans) {
            String proc = "p" + pl.p();
            Op op;
            if (pl.kind() < 4) {
                op = read(proc, value, pl.invoke(), pl.complete());
            } else if (pl.kind() < 9) {
                value = "v" + seq++;
                op = write(proc, value, pl.invoke(), pl.complete());
            } else {
                value = null;
                op = delete(proc, pl.invoke(), pl.complete());
            }
            if (random.nextInt(10) == 0) {
                op = with(op, Outcome.UNKNOWN); // the client timed out; the effect may still have happened
            }
            ops.add(op);
        }
        return ops;
    }
}
