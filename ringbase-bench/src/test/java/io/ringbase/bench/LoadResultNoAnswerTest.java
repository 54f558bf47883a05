package io.ringbase.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Requests without an answer (connection errors, timeouts): oha's CSV lists only answered requests, so the
 * driver counts the rest of what it sent ({@code -n}: exactly rate x duration) under status 0, and they count
 * as errors in the ladder's error share and in the report.
 */
class LoadResultNoAnswerTest {

    @Test
    void unansweredRequestsCountAsErrorsOverAllSent() {
        LoadResult r = LoadResult.empty(2);
        for (int i = 0; i < 6; i++) {
            r.record(0.5, 1_000, 201);
        }
        r.record(1.5, 1_000, 503);
        r.record(1.5, 1_000, 404);
        r.recordNoAnswer(2);
        r.recordNoAnswer(0);
        assertThat(r.answered()).isEqualTo(8);
        assertThat(r.noAnswer()).isEqualTo(2);
        assertThat(r.statuses()).containsEntry(LoadResult.NO_ANSWER, 2L);
        assertThat(r.errorShare(Set.of(201))).isEqualTo(4 / 10.0);
        assertThat(r.errorShare(Set.of(201, 404))).isEqualTo(3 / 10.0);
        assertThat(r.answersWithStatus(500, 600)).isEqualTo(1);
        assertThat(r.answersWithStatus(400, 500)).isEqualTo(1);
        assertThat(r.achievedRate()).as("answered per second").isEqualTo(4.0);
    }

    @Test
    void neverSentRequestsAreTheirOwnPartOfTheUnansweredAndAddUp() {
        LoadResult a = LoadResult.empty(1);
        a.record(0.5, 1_000, 201);
        a.recordNoAnswer(5, 3);
        LoadResult b = LoadResult.empty(1);
        b.recordNoAnswer(2, 9); // more "unsent" than unanswered cannot be: capped
        LoadResult total = LoadResult.empty(1);
        total.add(a);
        total.add(b);
        assertThat(a.noAnswer()).isEqualTo(5);
        assertThat(a.unsent().get()).isEqualTo(3);
        assertThat(total.noAnswer()).isEqualTo(7);
        assertThat(total.unsent().get()).isEqualTo(5);
    }

    @Test
    void theDriverSendsExactlyRateTimesDurationAndKnowsIt() {
        OhaDriver driver = new OhaDriver(Path.of("/opt/oha"), -1, Path.of("/tmp"));
        LoadSpec spec = new LoadSpec(
                "PUT", "http://127.0.0.1:1/v0/entity?id=k{key}", LoadSpec.UrlSource.NEW_KEYS, null, 1500.0, 64);
        assertThat(driver.command(spec, 10, Path.of("/tmp/x.csv")))
                .containsSequence("-n", "15000")
                .containsSequence("-q", "1500.0")
                .doesNotContain("-z")
                .containsSequence("--rand-regex-url", "http://127.0.0.1:1/v0/entity\\?id=k[0-9]{12}");
        assertThat(OhaDriver.intended(spec, 10)).isEqualTo(15_000);
    }
}
