package io.ringbase.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KeySpaceTest {

    @Test
    void prefilledKeysSortInNumberOrder() {
        assertThat(KeySpace.key(7)).isEqualTo("k0000000007");
        assertThat(KeySpace.key(10).compareTo(KeySpace.key(9))).isPositive();
    }

    @Test
    void urlFilesDrawOnlyPrefilledKeys(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("urls.txt");
        KeySpace.writeUrlFile(file, "http://127.0.0.1:1", 50, KeyChoice.ZIPFIAN, false, "&ack=1&from=1", 1);
        List<String> lines = Files.readAllLines(file);
        assertThat(lines).hasSize(KeySpace.URLS_PER_FILE);
        assertThat(lines)
                .allMatch(l -> l.matches("http://127\\.0\\.0\\.1:1/v0/entity\\?id=k00000000[0-4][0-9]&ack=1&from=1"));
    }

    @Test
    void rangeUrlsSpanAtMostRangeKeysInsideThePrefill(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("ranges.txt");
        KeySpace.writeUrlFile(file, "http://h:2", 1000, KeyChoice.UNIFORM, true, "", 2);
        String first = Files.readAllLines(file).getFirst();
        assertThat(first).matches("http://h:2/v0/entities\\?start=k\\d{10}&end=k\\d{10}");
        long start = Long.parseLong(first.replaceAll(".*start=k(\\d+)&.*", "$1"));
        long end = Long.parseLong(first.replaceAll(".*end=k(\\d+)$", "$1"));
        assertThat(end - start).isBetween(1L, (long) KeySpace.RANGE_KEYS);
        assertThat(end).isLessThanOrEqualTo(1000);
    }

    @Test
    void benchArgumentsAreThoseAfterTheSubcommand() {
        assertThat(BenchCommand.argsAfterBench(List.of("bench", "--workload", "get")))
                .containsExactly("--workload", "get");
        assertThat(BenchCommand.argsAfterBench(List.of("--x"))).containsExactly("--x");
    }
}
