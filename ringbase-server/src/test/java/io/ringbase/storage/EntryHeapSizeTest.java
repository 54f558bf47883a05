package io.ringbase.storage;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

class EntryHeapSizeTest {

    @Test
    void smallArraysCostHeaderPlusElements() {
        assertThat(Entry.arrayHeapSize(0)).isEqualTo(16);
        assertThat(Entry.arrayHeapSize(100)).isEqualTo(116);
        assertThat(Entry.value(new byte[10], 1, new byte[100]).heapSize()).isEqualTo(40 + 26 + 116);
        assertThat(Entry.tombstone(new byte[10], 1).heapSize()).isEqualTo(40 + 26);
    }

    @Test
    void underG1AnArrayOfHalfARegionOrMoreCostsWholeRegions() {
        HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        boolean g1 = "true".equals(vm.getVMOption("UseG1GC").getValue());
        long region = Long.parseLong(vm.getVMOption("G1HeapRegionSize").getValue());
        int oneRegionOfElements = (int) region;
        if (g1) {
            assertThat(Entry.arrayHeapSize(oneRegionOfElements))
                    .as("header pushes it into a second region")
                    .isEqualTo(2 * region);
            assertThat(Entry.arrayHeapSize((int) region / 2)).isEqualTo(region);
            assertThat(Entry.arrayHeapSize((int) region / 2 - 17)).isEqualTo(region / 2 - 1);
        } else {
            assertThat(Entry.arrayHeapSize(oneRegionOfElements)).isEqualTo(16 + region);
        }
    }
}
