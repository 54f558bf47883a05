package io.ringbase.logging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class LogThrottleTest {

    @Test
    void theFirstEventLogsAndTheRestOfTheIntervalIsHeldBack() {
        LogThrottle throttle = new LogThrottle(1, TimeUnit.HOURS);
        assertThat(throttle.tryLog()).isZero();
        for (int i = 0; i < 5; i++) {
            assertThat(throttle.tryLog()).isEqualTo(-1);
        }
    }

    @Test
    void aLineReportsHowManyWereHeldBack() throws InterruptedException {
        LogThrottle throttle = new LogThrottle(30, TimeUnit.MILLISECONDS);
        // the calls first, the assertions after: loading AssertJ's classes between two calls took longer than
        // the 30 ms interval when this test ran first in its JVM (it failed whenever run on its own)
        long first = throttle.tryLog();
        long logged;
        int calls = 0;
        while ((logged = throttle.tryLog()) < 0) {
            calls++;
            Thread.sleep(1);
        }
        long next = throttle.tryLog();
        assertThat(first).isZero();
        assertThat(calls).isPositive();
        assertThat(logged).as("every event held back since the first line").isEqualTo(calls);
        assertThat(next).as("within the new interval").isEqualTo(-1);
    }

    @Test
    void aNonPositiveIntervalIsRefused() {
        assertThatThrownBy(() -> new LogThrottle(0, TimeUnit.SECONDS)).isInstanceOf(IllegalArgumentException.class);
    }
}
