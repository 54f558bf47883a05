package io.ringbase.functions;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.clock.TimeSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class JobsTest {

    private static final int SCHED_IDLE = 5;

    @Test
    void functionsRunAtIdlePriorityNotAsEqualsOfTheRequestPath() throws Exception {
        Assumptions.assumeTrue(Files.exists(Path.of("/proc/thread-self/stat")), "needs Linux /proc");
        Assumptions.assumeTrue(
                Integer.getInteger("ringbase.background.lowest", 20) == 20, "background priority not capped");
        try (Jobs jobs = new Jobs(null, TimeSource.SYSTEM, FunctionLimits.DEFAULTS, FunctionEngine.DEFAULT, 1)) {
            int policy = jobs.onPool(JobsTest::policy).get(10, TimeUnit.SECONDS);
            assertThat(policy).as("scheduling policy of a function pool thread").isEqualTo(SCHED_IDLE);
        }
    }

    /** Field 41 (policy) of /proc/thread-self/stat. */
    private static int policy() throws java.io.IOException {
        String stat = Files.readString(Path.of("/proc/thread-self/stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Integer.parseInt(fields[38]); // fields[0] is field 3 (state)
    }
}
