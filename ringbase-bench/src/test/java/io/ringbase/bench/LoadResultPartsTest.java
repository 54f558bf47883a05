package io.ringbase.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A run made of consecutive shorter runs: each part's seconds land after the parts before it. */
class LoadResultPartsTest {

    @TempDir
    Path tmp;

    @Test
    void addAtShiftsSecondsAndMergesStatusesAndOperations() {
        LoadResult total = LoadResult.empty(4);
        LoadResult first = LoadResult.empty(2);
        first.record(0.5, 1_000, 201);
        first.record(1.5, 2_000, 201);
        LoadResult second = LoadResult.empty(2);
        second.record(0.2, 9_000, 503);
        LoadResult secondGets = LoadResult.empty(2);
        secondGets.addOperation("GET", second);
        total.addAt(first, 0);
        total.addAt(secondGets, 2);
        assertThat(total.answered()).isEqualTo(3);
        assertThat(total.perSecondUs()[0].getTotalCount()).isEqualTo(1);
        assertThat(total.perSecondUs()[1].getTotalCount()).isEqualTo(1);
        assertThat(total.perSecondUs()[2].getMaxValue()).isBetween(8_990L, 9_010L);
        assertThat(total.perSecondUs()[3].getTotalCount()).isZero();
        assertThat(total.statuses()).containsEntry(201, 2L).containsEntry(503, 1L);
        assertThat(total.operations().get("GET").perSecondUs()[2].getTotalCount()).isEqualTo(1);
        assertThat(total.achievedRate()).isEqualTo(3 / 4.0);
    }

    @Test
    void runInPartsStartsOneOhaPerPartAndPlacesItsSeconds() throws Exception {
        // a stand-in for oha: answers each of its -n requests at 0.5 s into its own run, logs its -n
        Path log = tmp.resolve("runs.log");
        Path fake = tmp.resolve("oha");
        Files.writeString(fake, """
                #!/bin/sh
                n=0; out=""
                while [ $# -gt 0 ]; do
                  case "$1" in -n) n=$2; shift ;; -o) out=$2; shift ;; esac
                  shift
                done
                echo "$n" >> %s
                echo "request-start,DNS,DNS+dialup,Response-delay,request-duration,bytes,status" > "$out"
                i=0
                while [ $i -lt $n ]; do echo "0.5,0,0,0,0.001,0,201" >> "$out"; i=$((i+1)); done
                """.formatted(log));
        Files.setPosixFilePermissions(fake, PosixFilePermissions.fromString("rwxr-xr-x"));
        OhaDriver driver = new OhaDriver(fake, -1, tmp);
        OhaDriver.Spec spec = new OhaDriver.Spec("PUT", "http://127.0.0.1:1/v0/entity?id=k[0-9]{6}",
                OhaDriver.UrlSource.REGEX, null, 10.0, 4);
        List<Integer> ticks = new ArrayList<>();
        LoadResult r = driver.runInParts(List.of(spec), 12, 5, ticks::add);
        assertThat(Files.readAllLines(log)).containsExactly("50", "50", "20");
        assertThat(r.answered()).isEqualTo(120);
        assertThat(r.durationS()).isEqualTo(12);
        assertThat(r.perSecondUs()[0].getTotalCount()).isEqualTo(50);
        assertThat(r.perSecondUs()[5].getTotalCount()).isEqualTo(50);
        assertThat(r.perSecondUs()[10].getTotalCount()).isEqualTo(20);
        assertThat(r.perSecondUs()[1].getTotalCount()).isZero();
        assertThat(r.achievedRate()).isEqualTo(10.0);
        assertThat(ticks).allMatch(t -> t >= 1 && t <= 12);
    }
}
