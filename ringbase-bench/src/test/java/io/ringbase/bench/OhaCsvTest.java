package io.ringbase.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class OhaCsvTest {

    /** Lines as oha 1.16 writes them with --output-format csv (durations in seconds). */
    private static final String CSV = """
            request-start,DNS,DNS+dialup,Response-delay,request-duration,bytes,status
            0.000105,0,0.000201,0.000950,0.001000,0,201
            0.300000,0,0,0.000400,0.000500,0,201
            0.900000,0,0,0.001900,0.002000,0,201
            1.100000,0,0,0.009900,0.010000,0,503
            2.500000,0,0,0.099000,0.100000,0,201
            """;

    @Test
    void readsEveryRequestIntoTheHistogramInMicroseconds() throws IOException {
        LoadResult r = LoadResult.empty(3);
        long n = OhaCsv.parse(new BufferedReader(new StringReader(CSV)), r);
        assertThat(n).isEqualTo(5);
        assertThat(r.answered()).isEqualTo(5);
        assertThat(r.latencyUs().getMinValue()).isEqualTo(500);
        assertThat(r.latencyUs().getMaxValue()).isBetween(99_900L, 100_100L);
        assertThat(r.percentileMs(50)).isCloseTo(2.0, org.assertj.core.data.Offset.offset(0.01));
        assertThat(r.statuses()).isEqualTo(Map.of(201, 4L, 503, 1L));
        assertThat(r.errorShare(Set.of(201))).isEqualTo(0.2);
        assertThat(r.achievedRate()).isCloseTo(5 / 3.0, org.assertj.core.data.Offset.offset(1e-9));
    }

    @Test
    void binsRequestsByTheSecondTheyWereSent() throws IOException {
        LoadResult r = LoadResult.empty(3);
        OhaCsv.parse(new BufferedReader(new StringReader(CSV)), r);
        assertThat(r.perSecondUs()[0].getTotalCount()).isEqualTo(3);
        assertThat(r.perSecondUs()[1].getTotalCount()).isEqualTo(1);
        assertThat(r.perSecondUs()[2].getTotalCount()).isEqualTo(1);
    }

    @Test
    void mergedResultsAddUp() throws IOException {
        LoadResult a = LoadResult.empty(3);
        LoadResult b = LoadResult.empty(3);
        OhaCsv.parse(new BufferedReader(new StringReader(CSV)), a);
        OhaCsv.parse(new BufferedReader(new StringReader(CSV)), b);
        a.add(b);
        assertThat(a.answered()).isEqualTo(10);
        assertThat(a.statuses()).isEqualTo(Map.of(201, 8L, 503, 2L));
        assertThat(a.perSecondUs()[0].getTotalCount()).isEqualTo(6);
    }

    @Test
    void aForeignHeaderIsRefused() {
        assertThatThrownBy(() -> OhaCsv.parse(
                        new BufferedReader(new StringReader("Summary:\n  Success rate: 100%\n")), LoadResult.empty(1)))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("not oha's CSV output");
    }

    @Test
    void aShortLineIsRefusedWithItsNumber() {
        String csv = OhaCsv.HEADER + "\n0.1,0,0,0.1,0.2,0,200\n0.2,0,0\n";
        assertThatThrownBy(() -> OhaCsv.parse(new BufferedReader(new StringReader(csv)), LoadResult.empty(1)))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("line 3");
    }
}
