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
 * The short fault-injection suite of every {@code ./mvnw verify} (the integration tier, Failsafe): every
 * fault for a few seconds. Needs root. Leave it out explicitly with {@code -DexcludedGroups=faults-short}.
 */
@RootOnly
@NeedsCommands({"ip", "tc", "iptables", "nsenter", "kill", "mount", "umount"}) // Tools.COMMANDS
@Tag("faults-short")
// up to 30 min waiting for another run's machine lock (FaultSuite), then about 4 min of faults
@Timeout(value = 40, unit = TimeUnit.MINUTES)
class ShortFaultSuiteTest {

    @Test
    void everyCheckerPassesUnderEveryFault() throws Exception {
        List<FaultResult> results = FaultSuite.run(SuiteSettings.shortRun(), FaultSuite.faults(), true);
        assertThat(results)
                .as("see target/faults/report.md")
                .allSatisfy(r -> assertThat(r.pass())
                        .as("%s: %s %s", r.fault(), r.verdicts(), r.notes())
                        .isTrue());
    }
}
