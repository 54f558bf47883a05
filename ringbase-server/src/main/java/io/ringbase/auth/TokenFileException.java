package io.ringbase.auth;

/**
 * A token file that cannot be used: the line (1-based, 0 for the file as a whole) and what is wrong with
 * it. The message never holds the line's text, which may hold a token.
 */
public final class TokenFileException extends Exception {

    private final int line;

    /**
     * @param line   the 1-based line number, or 0 for the whole file
     * @param reason what is wrong, without the line's text
     */
    public TokenFileException(int line, String reason) {
        super(line == 0 ? reason : "line " + line + ": " + reason);
        this.line = line;
    }

    /** The 1-based line number, or 0 for the file as a whole. */
    public int line() {
        return line;
    }
}
