package io.ringbase.os;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** The real system calls, read back from {@code /proc/thread-self/stat}. */
class ThreadPriorityTest {

    private static final int SCHED_OTHER = 0;
    private static final int SCHED_IDLE = 5;

    @Test
    void idleIsSchedIdleAndANiceValueBringsTheNormalPolicyBack() throws Exception {
        Assumptions.assumeTrue(Files.exists(Path.of("/proc/thread-self/stat")), "needs Linux /proc");
        boolean root = (int) Files.getAttribute(Path.of("/proc/self"), "unix:uid") == 0;
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<int[]> seen = new ArrayList<>(); // {policy, nice} after each call
        List<Boolean> answers = new ArrayList<>();
        Thread t = Thread.ofPlatform().start(() -> {
            try {
                answers.add(ThreadPriority.setCurrentThread(ThreadPriority.IDLE));
                seen.add(policyAndNice());
                answers.add(ThreadPriority.setCurrentThread(5)); // leaving SCHED_IDLE: needs the privilege
                seen.add(policyAndNice());
                answers.add(ThreadPriority.setCurrentThread(ThreadPriority.IDLE + 1));
                seen.add(policyAndNice());
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        assertThat(t.join(Duration.ofSeconds(30))).as("the thread ended").isTrue();
        assertThat(failure.get()).isNull();
        assertThat(answers.get(0)).as("SCHED_IDLE needs no privilege").isTrue();
        assertThat(seen.get(0)[0]).isEqualTo(SCHED_IDLE);
        assertThat(answers.get(1)).isEqualTo(root);
        if (root) {
            assertThat(seen.get(1)).containsExactly(SCHED_OTHER, 5);
        } else {
            assertThat(seen.get(1)[0]).isEqualTo(SCHED_IDLE); // refused: unchanged
        }
        assertThat(answers.get(2)).as("out of range").isFalse();
        assertThat(seen.get(2)).containsExactly(seen.get(1));
    }

    @Test
    void compilerThreadsTakeTheNiceValueAndOtherThreadsKeepTheirs() throws Exception {
        Assumptions.assumeTrue(Files.exists(Path.of("/proc/self/task")), "needs Linux /proc");
        int before = niceOf(Path.of("/proc/thread-self"));
        try {
            assertThat(ThreadPriority.setCompilerThreads(ThreadPriority.COMPILER_NICE))
                    .as("HotSpot's C1 and C2 threads were found")
                    .isGreaterThanOrEqualTo(2);
            List<String> compilers = new ArrayList<>();
            try (var tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
                for (Path task : tasks) {
                    String name = Files.readString(task.resolve("comm")).strip();
                    if (name.startsWith("C1 Compiler") || name.startsWith("C2 Compiler")) {
                        compilers.add(name);
                        assertThat(niceOf(task)).as(name).isEqualTo(ThreadPriority.COMPILER_NICE);
                    }
                }
            }
            assertThat(compilers).isNotEmpty();
            assertThat(niceOf(Path.of("/proc/thread-self")))
                    .as("the calling thread")
                    .isEqualTo(before);
            assertThat(ThreadPriority.setCompilerThreads(20)).as("out of range").isZero();
        } finally {
            ThreadPriority.setCompilerThreads(0); // back to normal where privileged, so later tests compile as usual
        }
    }

    private static int niceOf(Path task) throws java.io.IOException {
        String stat = Files.readString(task.resolve("stat"));
        return Integer.parseInt(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[16]);
    }

    /** Fields 41 (policy) and 19 (nice) of /proc/thread-self/stat. */
    private static int[] policyAndNice() throws java.io.IOException {
        String stat = Files.readString(Path.of("/proc/thread-self/stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        // fields[0] is field 3 (state)
        return new int[] {Integer.parseInt(fields[38]), Integer.parseInt(fields[16])};
    }
}
