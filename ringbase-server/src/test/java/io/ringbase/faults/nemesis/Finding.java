package io.ringbase.faults.nemesis;

/**
 * Something a nemesis found besides what it did.
 *
 * @param failure whether a healthy cluster must not do this (it fails the run), or it only informs
 * @param text    one line for people, naming the node and what was wrong
 */
public record Finding(boolean failure, String text) {

    public static Finding failure(String text) {
        return new Finding(true, text);
    }

    public static Finding info(String text) {
        return new Finding(false, text);
    }
}
