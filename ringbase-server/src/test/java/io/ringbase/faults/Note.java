package io.ringbase.faults;

/**
 * Something a fault's run saw besides the checkers' verdicts, with how much it weighs.
 *
 * @param severity {@link Severity#FAILURE} fails the run as a failing checker does; {@link Severity#INFO} only
 *                 informs
 * @param text     one line for people, naming what was wrong (the node, the key)
 */
public record Note(Severity severity, String text) {

    /** How much a note weighs. */
    public enum Severity {
        /** Figures and context (what repair moved, how many reads needed a retry); never fails a run. */
        INFO,
        /**
         * Something a healthy cluster must not do, or a check that could not be made: a node that exited
         * by itself, a cluster that did not heal, a final read that failed, a repair that did not finish.
         */
        FAILURE
    }

    /** An informational note. */
    public static Note info(String text) {
        return new Note(Severity.INFO, text);
    }

    /** A note that fails the run. */
    public static Note failure(String text) {
        return new Note(Severity.FAILURE, text);
    }

    /** Whether this note fails the run. */
    public boolean isFailure() {
        return severity == Severity.FAILURE;
    }

    @Override
    public String toString() {
        return (isFailure() ? "FAILURE: " : "") + text;
    }
}
