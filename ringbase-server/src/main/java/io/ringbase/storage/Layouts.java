package io.ringbase.storage;

import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The byte order of every on-disk format of Ringbase, set in this one place: little-endian, unaligned.
 * See {@code docs/format.md}, "Conventions".
 */
public final class Layouts {

    public static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;
    public static final ValueLayout.OfByte U8 = ValueLayout.JAVA_BYTE;
    public static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ORDER);
    public static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ORDER);

    private Layouts() {}
}
