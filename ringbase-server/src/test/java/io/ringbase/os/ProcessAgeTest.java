package io.ringbase.os;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A process's age from /proc: uptime less its start time, to the 10 ms of a clock tick. */
class ProcessAgeTest {

    /** A /proc/self/stat line whose command name holds a space and a parenthesis; starttime (field 22) 123400. */
    private static final String STAT = "4242 (java (x) y) S 1 4242 4242 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 30 0 "
            + "123400 4096000 2000 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0";

    @Test
    void ageIsUptimeLessStartTime() {
        assertThat(ProcessAge.millis("1235.50 100.00\n", STAT)).hasValue(1_500);
    }

    @Test
    void unreadableTextGivesNoAge() {
        assertThat(ProcessAge.millis("", STAT)).isEmpty();
        assertThat(ProcessAge.millis("1235.50 100.00", "4242 (java) S 1 2 3")).isEmpty();
        assertThat(ProcessAge.millis("1000.00 1.00", STAT))
                .as("started after now")
                .isEmpty();
        assertThat(ProcessAge.millis("abc 1.00", STAT)).isEmpty();
    }

    @Test
    void thisProcessHasAnAge() {
        assertThat(ProcessAge.millis()).isPresent();
        assertThat(ProcessAge.millis().getAsLong()).isPositive();
    }
}
