package io.ringbase.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Off a terminal, a progress bar prints whole lines: at most one per interval, one per percentage, and its end. */
class ProgressLinesTest {

    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final AtomicLong now = new AtomicLong(1_000);
    private final ProgressLines lines =
            new ProgressLines(new PrintStream(bytes, true, StandardCharsets.UTF_8), now::get);

    private String[] printed() {
        return bytes.toString(StandardCharsets.UTF_8).split("\n", -1);
    }

    @Test
    void redrawsBecomeWholeLinesAtMostOnePerInterval() {
        lines.accept("\rrepair   0% [   ]  0/32 (0:00:00 / ?) ");
        for (int i = 0; i < 50; i++) { // 200 ms redraws for 10 s, the percentage rising
            now.addAndGet(200);
            lines.accept("\rrepair   " + (i / 10 + 1) + "% [   ]  " + (i / 10) + "/32 ");
        }
        lines.close();
        String[] out = printed();
        assertThat(out[0]).isEqualTo("repair   0% [   ]  0/32 (0:00:00 / ?)");
        assertThat(out).allSatisfy(l -> assertThat(l).doesNotContain("\r"));
        // the first line, one after 5 s and one after 10 s, and the last state on close
        assertThat(out).hasSizeLessThanOrEqualTo(5);
        assertThat(out[out.length - 2]).isEqualTo("repair   5% [   ]  4/32");
    }

    @Test
    void anUnchangedPercentagePrintsNothingMore() {
        lines.accept("snapshot   50% [=> ] 1/2");
        now.addAndGet(60_000);
        lines.accept("snapshot   50% [=> ] 1/2");
        lines.close();
        assertThat(printed()).containsExactly("snapshot   50% [=> ] 1/2", "");
    }
}
