package io.ringbase.logging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionFactory;
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
    void aLineReportsHowManyWereHeldBack() {
        // events every millisecond (polled in this thread) until the throttle lets one through
        ConditionFactory everyMs = await().atMost(Duration.ofSeconds(5))
                .pollInterval(Duration.ofMillis(1))
                .pollInSameThread();
        everyMs.until(() -> true); // loads Awaitility's classes before the interval starts
        LogThrottle throttle = new LogThrottle(30, TimeUnit.MILLISECONDS);
        // the calls first, the assertions after: loading AssertJ's classes between two calls took longer than
        // the 30 ms interval when this test ran first in its JVM (it failed whenever run on its own)
        long first = throttle.tryLog();
        long[] logged = {-1};
        int[] calls = {0};
        everyMs.until(() -> {
            logged[0] = throttle.tryLog();
            if (logged[0] < 0) {
                calls[0]++;
            }
            return logged[0] >= 0;
        });
        long next = throttle.tryLog();
        assertThat(first).isZero();
        assertThat(calls[0]).isPositive();
        assertThat(logged[0]).as("every event held back since the first line").isEqualTo(calls[0]);
        assertThat(next).as("within the new interval").isEqualTo(-1);
    }

    @Test
    void aNonPositiveIntervalIsRefused() {
        assertThatThrownBy(() -> new LogThrottle(0, TimeUnit.SECONDS)).isInstanceOf(IllegalArgumentException.class);
    }
}
