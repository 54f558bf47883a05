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
 * as a row. A second test replaces a wiped node the same way. Reports in {@code target/faults-membership/} and
 * {@code target/faults-wipe-replace/}. Needs root.
 */
@RootOnly
@NeedsCommands({"ip", "tc", "iptables", "nsenter", "kill", "mount", "umount"}) // Tools.COMMANDS
@Tag("faults-short")
// up to 30 min waiting for another run's machine lock (FaultSuite), then about 1 min; each change is bounded
@Timeout(value = 40, unit = TimeUnit.MINUTES)
class MembershipFaultTest {

    @Test
    void everyCheckerPassesWhileTheClusterGrowsToFiveNodesAndShrinksBack() throws Exception {
        assertPasses(FaultSuite.membershipFault(), "faults-membership");
    }

    /**
     * A joined node loses its disk (SIGKILL, data directory deleted): it must refuse to start as it was, and
     * started with {@code --replace ID} it must stream before it answers reads; the linearizability checker sees
     * any stale read it answered.
     */
    @Test
    void aWipedNodeIsRefusedThenReplacedWithNoStaleRead() throws Exception {
        assertPasses(FaultSuite.wipeReplaceFault(), "faults-wipe-replace");
    }

    private static void assertPasses(FaultSuite.Fault fault, String dir) throws Exception {
        SuiteSettings settings = SuiteSettings.shortRun().withOutputDir(Path.of("target", dir));
        List<FaultResult> results = FaultSuite.run(settings, List.of(fault), false);
        assertThat(results)
                .as("see target/%s/report.md", dir)
                .singleElement()
                .satisfies(r -> assertThat(r.pass())
                        .as("%s: %s %s", r.fault(), r.verdicts(), r.notes())
                        .isTrue());
    }
}
