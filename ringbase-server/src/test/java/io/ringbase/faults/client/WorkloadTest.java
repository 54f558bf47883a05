package io.ringbase.faults.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.ringbase.faults.SuiteSettings;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Register keys live by time, long enough to see a whole fault, their slots staggered. */
class WorkloadTest {

    static final long MS = 1_000_000;
    /** The time step of the sweeps: it divides every lifetime and stagger of the suites' settings. */
    static final long STEP = 10 * MS;

    @Test
    void everyRegisterKeyHoldsAWholeFaultWindowWhereverItStarts() {
        for (SuiteSettings s : List.of(SuiteSettings.shortRun(), SuiteSettings.fullRun())) {
            long lifetime = s.registerKeyLifetimeMs() * MS;
            // FaultRun's schedule: the first fault 1 s after the clients start, then every active + quiet
            List<long[]> faults = new ArrayList<>();
            for (long t = 1_000 * MS; t < 600_000 * MS; t += (s.activeMs() + s.quietMs()) * MS) {
                faults.add(new long[] {t, t + s.activeMs() * MS});
            }
            for (int slot = 0; slot < Workload.REGISTER_SLOTS; slot++) {
                Map<String, long[]> lives = new LinkedHashMap<>(); // key -> {first, last} ms it was used
                for (long t = 0; t < 300_000 * MS; t += STEP) {
                    String key = Workload.registerKey(slot, t, lifetime);
                    long at = t;
                    lives.computeIfAbsent(key, k -> new long[] {at, at})[1] = at;
                }
                List<long[]> whole = new ArrayList<>(lives.values()).subList(1, lives.size() - 1);
                assertThat(whole).isNotEmpty().allSatisfy(life -> {
                    assertThat(life[1] + STEP - life[0]).isEqualTo(lifetime);
                    assertThat(faults)
                            .as("a fault window inside a key's life [%d, %d] ms", life[0] / MS, life[1] / MS)
                            .anyMatch(f -> f[0] >= life[0] && f[1] <= life[1]);
                });
            }
        }
    }

    @Test
    void slotsChangeKeysAtStaggeredTimes() {
        long lifetime = 6_000 * MS;
        List<Long> changes = new ArrayList<>();
        for (int slot = 0; slot < Workload.REGISTER_SLOTS; slot++) {
            String first = Workload.registerKey(slot, 0, lifetime);
            for (long t = MS; t < lifetime; t += MS) {
                if (!Workload.registerKey(slot, t, lifetime).equals(first)) {
                    changes.add(t / MS);
                    break;
                }
            }
        }
        // slot 0 starts a fresh key at 0 and keeps it the whole lifetime; the others change a sixth apart
        assertThat(changes).containsExactly(5_000L, 4_000L, 3_000L, 2_000L, 1_000L);
    }
}
