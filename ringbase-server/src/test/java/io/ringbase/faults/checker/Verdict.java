package io.ringbase.faults.checker;

import java.util.List;

/**
 * What a checker found.
 *
 * @param pass     whether the property held
 * @param summary  one line for the report table's cell notes
 * @param problems each violation (or why the check could not decide), for the failure file
 */
public record Verdict(boolean pass, String summary, List<String> problems) {

    public Verdict {
        problems = List.copyOf(problems);
    }

    public static Verdict pass(String summary) {
        return new Verdict(true, summary, List.of());
    }

    public static Verdict fail(String summary, List<String> problems) {
        return new Verdict(false, summary, problems);
    }
}
