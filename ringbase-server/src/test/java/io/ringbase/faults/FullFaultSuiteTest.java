package io.ringbase.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.testing.NeedsCommands;
import io.ringbase.testing.RootOnly;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The full fault-injection suite, {@code ./mvnw verify -Pfaults}: minutes per fault
 * ({@code -Dringbase.faults.seconds=N} to change). Needs root.
 */
@RootOnly
@NeedsCommands({"ip", "tc", "iptables", "nsenter", "kill", "mount", "umount"}) // Tools.COMMANDS
@Tag("faults")
// 13 faults of ringbase.faults.seconds each (3 min unless set): this bound only keeps a hang from running for ever
@Timeout(value = 12, unit = TimeUnit.HOURS)
class FullFaultSuiteTest {

    @Test
    void everyCheckerPassesUnderEveryFaultForMinutes() throws Exception {
        List<FaultResult> results = FaultSuite.run(SuiteSettings.fullRun(), FaultSuite.fullFaults(), true);
        assertThat(results)
                .as("see target/faults/report.md")
                .allSatisfy(r -> assertThat(r.pass())
                        .as("%s: %s %s", r.fault(), r.verdicts(), r.notes())
                        .isTrue());
    }
}
