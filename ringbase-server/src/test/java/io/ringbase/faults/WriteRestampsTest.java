package io.ringbase.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class WriteRestampsTest {

    @Test
    void theLargestCountOfEachStartIsSummed() {
        String log = String.join(
                "\n",
                "---- start serve --port 1",
                "x INFO OneRoundWrite - quorum writes sent again above a newer version every replica held: 1 so far (..)",
                "x INFO OneRoundWrite - quorum writes sent again above a newer version every replica held: 2 so far (..)",
                "x INFO OneRoundWrite - quorum writes sent again above a newer version every replica held: 4 so far (..)",
                "---- start serve --port 1 --test-clock-offset-ms=300",
                "x INFO OneRoundWrite - quorum writes sent again above a newer version every replica held: 1 so far (..)",
                "x INFO OneRoundWrite - quorum writes failed as possibly applied, taken by some: 2 so far (..)");
        assertThat(WriteRestamps.countedIn(
                        log,
                        Pattern.compile("quorum writes sent again above a newer version every replica held: (\\d+)")))
                .isEqualTo(5);
        assertThat(WriteRestamps.countedIn(log, Pattern.compile("failed as possibly applied, .*: (\\d+) so far")))
                .isEqualTo(2);
        assertThat(WriteRestamps.countedIn("", Pattern.compile("(\\d+)"))).isZero();
    }
}
