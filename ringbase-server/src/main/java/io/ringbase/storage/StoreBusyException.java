package io.ringbase.storage;

import java.io.IOException;

/** The engine could not take a write within its bounded wait because flushing has fallen behind. */
public class StoreBusyException extends IOException {
    public StoreBusyException(String message) {
        super(message);
    }
}
