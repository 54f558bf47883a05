package io.ringbase.functions;

/** A module that is not WebAssembly, or does not follow the ABI of docs/functions.md; the message says why. */
public final class InvalidModuleException extends Exception {
    private static final long serialVersionUID = 1L;

    /** @param reason one line: what is wrong with the module */
    public InvalidModuleException(String reason) {
        super(reason);
    }
}
