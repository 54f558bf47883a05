package io.ringbase.faults.checker;

import io.ringbase.faults.history.Op;
import java.util.Objects;

/**
 * The sequential specification of one key of the store: a register holding a value or nothing
 * (never written, or deleted). A write sets the value, a delete empties it, a read returns it
 * ({@code null} for a 404); a compare-and-set writes its value only over the value it expected, and a
 * refused one (412) saw another. The state is the value itself ({@code null}: empty), so equal states compare
 * equal for the search's cache.
 */
final class RegisterModel {

    private RegisterModel() {}

    /** The state before any operation: empty. */
    static final String INITIAL = null;

    /** Whether {@code op} may run in {@code state}. */
    static boolean allows(String state, Op op) {
        return switch (op.f()) {
            case READ -> Objects.equals(state, op.value());
            case CAS -> Objects.equals(state, op.expected());
            case CAS_REFUSED -> !Objects.equals(state, op.expected());
            case WRITE, DELETE -> true;
        };
    }

    /** The state after {@code op} ran in {@code state} (which {@link #allows} it). */
    static String after(String state, Op op) {
        return switch (op.f()) {
            case READ, CAS_REFUSED -> state;
            case WRITE -> op.value();
            case DELETE -> null;
            case CAS -> op.next();
        };
    }
}
