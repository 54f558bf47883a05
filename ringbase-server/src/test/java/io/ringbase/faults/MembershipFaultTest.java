package io.ringbase.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.testing.NeedsCommands;
import io.ringbase.testing.RootOnly;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The membership row of every {@code ./mvnw verify} (tag {@code faults-short}): under the short suite's
 * mixed load through the 3 founding nodes, two nodes join one after the other and are then decommissioned
 * (3 to 5 to 3, {@link io.ringbase.faults.nemesis.MembershipNemesis}); every checker must pass, every change
 * finish within its bound, and no client request fail meanwhile. Its own test, not a row of
 * {@link ShortFaultSuiteTest}, because one cycle outlasts the short suite's 7 s window; the full suite has it
 * as a row. Report in {@code target/faults-membership/report.md}. Needs root.
 */
@RootOnly
@NeedsCommands({"ip", "tc", "iptables", "nsenter", "kill", "mount", "umount"}) // Tools.COMMANDS
@Tag("faults-short")
// up to 30 min waiting for another run's machine lock (FaultSuite), then about 1 min; each change is bounded
@Timeout(value = 40, unit = TimeUnit.MINUTES)
class MembershipFaultTest {

    @Test
    void everyCheckerPassesWhileTheClusterGrowsToFiveNodesAndShrinksBack() throws Exception {
        SuiteSettings settings = SuiteSettings.shortRun().withOutputDir(Path.of("target", "faults-membership"));
        List<FaultResult> results = FaultSuite.run(settings, List.of(FaultSuite.membershipFault()), false);
        assertThat(results)
                .as("see target/faults-membership/report.md")
                .singleElement()
                .satisfies(r -> assertThat(r.pass())
                        .as("%s: %s %s", r.fault(), r.verdicts(), r.notes())
                        .isTrue());
    }
}
