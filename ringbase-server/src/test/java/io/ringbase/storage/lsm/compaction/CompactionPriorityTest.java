package io.ringbase.storage.lsm.compaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.os.ThreadPriority;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class CompactionPriorityTest {

    /** Records the nice values asked for; refuses raising the priority when {@code privileged} is false. */
    private static final class FakeScheduler {
        final List<Integer> calls = new ArrayList<>();
        boolean privileged = true;
        int nice = 19; // the idle level of the tests that build CompactionPriority(19, 5, ...)

        boolean set(int want) {
            calls.add(want);
            if (want < nice && !privileged) {
                return false;
            }
            nice = want;
            return true;
        }
    }

    @Test
    void runsAtTheFlushPriorityFromHalfTheSlowdownTriggerAndBackBelowIt() {
        FakeScheduler os = new FakeScheduler();
        CompactionPriority p = new CompactionPriority(19, 5, 10, os::set);

        p.adjust(9);
        assertThat(os.calls).isEmpty(); // already at 19: no call
        p.adjust(10);
        assertThat(os.nice).isEqualTo(5);
        assertThat(p.currentNice()).isEqualTo(5);
        p.adjust(14);
        p.adjust(10);
        assertThat(os.calls).containsExactly(5); // no call while nothing changes
        p.adjust(9);
        assertThat(os.nice).isEqualTo(19);
        assertThat(p.currentNice()).isEqualTo(19);
        p.adjust(12);
        assertThat(os.calls).containsExactly(5, 19, 5);
    }

    @Test
    void withoutThePrivilegeToRaiseItStaysIdleAndStopsAsking() {
        FakeScheduler os = new FakeScheduler();
        os.privileged = false;
        CompactionPriority p = new CompactionPriority(19, 5, 10, os::set);

        p.adjust(20);
        p.adjust(25);
        p.adjust(3);
        p.adjust(30);
        assertThat(os.calls).containsExactly(5); // refused once, never asked again
        assertThat(p.currentNice()).isEqualTo(19);
        assertThat(os.nice).isEqualTo(19);
    }

    @Test
    void behindFromHalfTheSlowdownTrigger() {
        FakeScheduler os = new FakeScheduler();
        CompactionPriority p =
                CompactionPriority.forOptions(CompactionOptions.defaults().withWriteTriggers(8, 12), os::set);
        p.adjust(3);
        assertThat(p.currentNice()).isEqualTo(CompactionPriority.IDLE_NICE);
        p.adjust(4);
        assertThat(p.currentNice()).isEqualTo(CompactionPriority.BEHIND_NICE);
        assertThat(CompactionPriority.forOptions(CompactionOptions.defaults().withWriteTriggers(1, 1), os::set))
                .isNotNull(); // half of 1 rounds down; at least one table
    }

    @Test
    void rejectsABehindPriorityLowerThanIdleAndAnEmptyThreshold() {
        assertThatThrownBy(() -> new CompactionPriority(5, 19, 10, n -> true))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new CompactionPriority(19, 5, 0, n -> true))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** On Linux, the real call: the thread's nice value in /proc follows adjust() where the OS lets it. */
    @Test
    void realThreadNiceValueFollowsTheBacklog() throws Exception {
        Path procRoot = Path.of("/proc/thread-self/stat");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.exists(procRoot), "needs Linux /proc");
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Integer> seen = new ArrayList<>();
        Thread t = Thread.ofPlatform().start(() -> {
            try {
                assertThat(ThreadPriority.setCurrentThread(19)).isTrue(); // as the compaction thread starts
                CompactionPriority p = new CompactionPriority(19, 5, 10, ThreadPriority::setCurrentThread);
                seen.add(niceOfThisThread());
                p.adjust(10);
                seen.add(niceOfThisThread());
                seen.add(p.currentNice());
                p.adjust(2);
                seen.add(niceOfThisThread());
            } catch (Throwable e) {
                failure.set(e);
            }
        });
        assertThat(t.join(Duration.ofSeconds(30))).as("the thread ended").isTrue();
        assertThat(failure.get()).isNull();
        assertThat(seen.get(0)).isEqualTo(19);
        assertThat(seen.get(1)).isEqualTo(seen.get(2)); // /proc agrees with what adjust() reports
        assertThat(seen.get(1)).isIn(5, 19); // 5 with CAP_SYS_NICE (root, as in CI), else it stays at 19
        assertThat(seen.get(3)).isEqualTo(19);
    }

    /** Field 19 of /proc/thread-self/stat (after the parenthesised command name). */
    private static int niceOfThisThread() throws java.io.IOException {
        String stat = Files.readString(Path.of("/proc/thread-self/stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Integer.parseInt(fields[16]); // fields[0] is field 3 (state)
    }
}
