package io.ringbase.storage.lsm.wal;

import static io.ringbase.storage.Layouts.I32;
import static io.ringbase.storage.Layouts.U8;

import io.ringbase.storage.EntryFormat;
import io.ringbase.storage.Layouts;
import io.ringbase.storage.WriteBatch;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Writes a queue leader's batch of WAL records to a segment file: encodes them ({@code docs/format.md},
 * section 3) into one native buffer of {@value WalWriter#BATCH_BYTES} bytes and hands it to the file with
 * one {@code write()}; a single record larger than the buffer goes alone, its value written from where
 * its caller holds it. Used by one leader at a time (the writer queue hands it over under its lock).
 */
final class WalBatchWriter {

    private final FileChannel channel;
    /**
     * Native memory of {@link #batchBuffer}, freed by {@link #free} as soon as no leader writes from it.
     * Not a JDK direct buffer: those are freed only when the collector finds them unreachable, and a
     * writer lives long enough (a memtable's lifetime) to be promoted. The 1 MiB buffers of closed
     * segments then piled up in the old generation until {@code -XX:MaxDirectMemorySize} was reached and
     * {@code Bits.reserveMemory} called {@code System.gc()}: a full collection of 43 ms under constant
     * PUT load, and up to 32 MiB of anonymous RSS held by dead buffers.
     */
    private final Arena bufferArena = Arena.ofShared();

    private final ByteBuffer batchBuffer =
            bufferArena.allocate(WalWriter.BATCH_BYTES, 4096).asByteBuffer().order(Layouts.ORDER);
    private final CRC32C crc = new CRC32C();
    /** Records written by the last {@link #write}. */
    private int lastRecords;

    WalBatchWriter(FileChannel channel) {
        this.channel = channel;
    }

    /**
     * Writes the records of {@code batch}, {@code bytes} in all, with one {@code write()} (a gathering one
     * for a single record larger than the buffer).
     *
     * @return the bytes written; {@link #lastRecords()} says how many records
     */
    long write(List<WalWaiter> batch, long bytes) throws IOException {
        ByteBuffer buf = batchBuffer.clear();
        MemorySegment seg = MemorySegment.ofBuffer(buf);
        if (bytes > buf.capacity()) {
            // A single record larger than the buffer (the leader puts it in a batch of its own): its header
            // and key go through the buffer, its value straight from where the caller holds it, with one
            // gathering write, so no buffer of the record's size is allocated.
            lastRecords = 1;
            return writeLarge(batch.getFirst(), seg, buf);
        }
        int offset = 0;
        int records = 0;
        for (WalWaiter w : batch) {
            if (w.many != null) {
                WriteBatch many = w.many;
                for (int i = w.from; i < w.to; i++) {
                    offset = encode(
                            many.key(i), many.version(i), many.expiresAtMs(i), many.value(i), false, seg, buf, offset);
                }
                records += w.to - w.from;
            } else if (w.key != null) {
                offset = encode(w.key, w.version, w.expiresAtMs, w.value, w.typed, seg, buf, offset);
                records++;
            }
        }
        buf.limit(offset).position(0);
        while (buf.hasRemaining()) {
            channel.write(buf);
        }
        lastRecords = records;
        return offset;
    }

    /** Records written by the last {@link #write}. */
    int lastRecords() {
        return lastRecords;
    }

    /** Writes one record at {@code offset}; returns the offset past it. */
    private int encode(
            byte[] key,
            long version,
            long expiresAtMs,
            MemorySegment value,
            boolean typed,
            MemorySegment seg,
            ByteBuffer buf,
            int offset) {
        int payloadStart = offset + WalFormat.RECORD_HEADER_SIZE;
        int end = (int) EntryFormat.write(seg, payloadStart, key, version, expiresAtMs, value, typed);
        seg.set(I32, offset + WalFormat.OFF_LENGTH, end - payloadStart);
        seg.set(U8, offset + WalFormat.OFF_TYPE, WalFormat.RecordType.FULL.code);
        crc.reset();
        buf.limit(end).position(offset + WalFormat.OFF_LENGTH); // the shared buffer itself: no slice per record
        crc.update(buf);
        buf.limit(buf.capacity());
        seg.set(I32, offset + WalFormat.OFF_CRC, (int) crc.getValue());
        return end;
    }

    /** Writes one record too large for the batch buffer: header and key from it, then the value in place. */
    private long writeLarge(WalWaiter w, MemorySegment seg, ByteBuffer buf) throws IOException {
        long valueLength = w.value == null ? 0 : w.value.byteSize();
        int payloadStart = WalFormat.RECORD_HEADER_SIZE;
        int headEnd = (int) EntryFormat.writeHead(
                seg, payloadStart, w.key, w.version, w.expiresAtMs, w.value == null, w.typed, valueLength);
        seg.set(I32, WalFormat.OFF_LENGTH, Math.toIntExact(headEnd - payloadStart + valueLength));
        seg.set(U8, WalFormat.OFF_TYPE, WalFormat.RecordType.FULL.code);
        ByteBuffer value = valueLength == 0 ? ByteBuffer.allocate(0) : w.value.asByteBuffer();
        crc.reset();
        buf.limit(headEnd).position(WalFormat.OFF_LENGTH);
        crc.update(buf);
        crc.update(value.duplicate());
        seg.set(I32, WalFormat.OFF_CRC, (int) crc.getValue());
        buf.limit(headEnd).position(0);
        ByteBuffer[] parts = {buf, value};
        while (buf.hasRemaining() || value.hasRemaining()) {
            channel.write(parts);
        }
        return headEnd + valueLength;
    }

    /** Frees the buffer's memory once: no leader writes from it any more. */
    void free() {
        if (bufferArena.scope().isAlive()) {
            bufferArena.close();
        }
    }

    /** Whether {@link #free} has run. */
    boolean freed() {
        return !bufferArena.scope().isAlive();
    }
}
