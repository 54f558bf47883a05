package io.ringbase.storage.lsm.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ringbase.storage.CorruptionException;
import io.ringbase.storage.Entry;
import io.ringbase.storage.EntryFormat;
import io.ringbase.storage.Keys;
import io.ringbase.storage.WalSyncPolicy;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The reader rules of {@code docs/format.md}, section 3, checked by flipping and cutting exact bytes. */
class WalReaderTest {

    private static final int SEGMENT_HEADER = 8;
    private static final int RECORD_HEADER = 9;

    @TempDir
    Path dir;

    private Path file;
    /** Offset of each record written by {@link #writeSegment}, plus the end of the file last. */
    private final List<Long> offsets = new ArrayList<>();

    @BeforeEach
    void setUp() {
        file = dir.resolve("wal-00000000000000000001.log");
    }

    private List<Entry> writeSegment(List<Entry> entries) throws IOException {
        offsets.clear();
        try (WalWriter w = WalWriter.create(file, WalSyncPolicy.PERIODIC, 60_000)) {
            offsets.add(w.sizeBytes());
            for (Entry e : entries) {
                w.append(e);
                offsets.add(w.sizeBytes()); // single appender: sizeBytes is exact after each append
            }
        }
        assertThat(Files.size(file)).isEqualTo(offsets.getLast());
        return entries;
    }

    private static List<Entry> threeEntries() {
        return List.of(
                Entry.value(Keys.utf8("alpha"), 1, Keys.utf8("one")),
                Entry.value(Keys.utf8("beta"), 2, Keys.utf8("two")),
                Entry.value(Keys.utf8("gamma"), 3, Keys.utf8("three")));
    }

    private static List<Entry> replayAll(Path f, WalReader.ReplayResult[] result) throws IOException {
        List<Entry> out = new ArrayList<>();
        result[0] = WalReader.replay(f, out::add);
        return out;
    }

    private Path copyWith(byte[] bytes) throws IOException {
        Path damaged = dir.resolve("damaged.log");
        Files.write(damaged, bytes);
        return damaged;
    }

    private static byte[] flip(byte[] bytes, long offset) {
        byte[] copy = bytes.clone();
        copy[(int) offset] ^= 0x40;
        return copy;
    }

    @Test
    void roundTripOfValuesTombstonesExpiriesEmptyValueLargeKeyAndLargeValue() throws IOException {
        byte[] bigKey = new byte[Entry.MAX_KEY_BYTES];
        Arrays.fill(bigKey, (byte) 'k');
        byte[] bigValue = new byte[4 * 1024 * 1024];
        for (int i = 0; i < bigValue.length; i++) {
            bigValue[i] = (byte) (i * 31);
        }
        List<Entry> entries = writeSegment(List.of(
                Entry.value(Keys.utf8("a"), 10, Keys.utf8("value")),
                Entry.tombstone(Keys.utf8("b"), 11),
                new Entry(Keys.utf8("c"), 12, 1_700_000_000_000L, Keys.utf8("expiring")),
                new Entry(Keys.utf8("d"), 13, 1_700_000_000_000L, null),
                Entry.value(Keys.utf8("e"), Long.MIN_VALUE, new byte[0]),
                Entry.value(bigKey, 14, Keys.utf8("big key")),
                Entry.value(Keys.utf8("f"), Long.MAX_VALUE, bigValue)));

        WalReader.ReplayResult[] result = new WalReader.ReplayResult[1];
        List<Entry> replayed = replayAll(file, result);

        assertThat(replayed).containsExactlyElementsOf(entries);
        assertThat(replayed.get(1).isTombstone()).isTrue();
        assertThat(replayed.get(4).value()).isEmpty();
        assertThat(result[0]).isEqualTo(new WalReader.ReplayResult(entries.size(), Files.size(file), false));
    }

    @Test
    void emptySegmentReplaysNothing() throws IOException {
        writeSegment(List.of());
        WalReader.ReplayResult[] result = new WalReader.ReplayResult[1];
        assertThat(replayAll(file, result)).isEmpty();
        assertThat(result[0]).isEqualTo(new WalReader.ReplayResult(0, SEGMENT_HEADER, false));
    }

    @Test
    void bytesOnDiskMatchTheDocumentedLayout() throws IOException {
        Entry entry = Entry.value(Keys.utf8("k"), 7, Keys.utf8("v"));
        writeSegment(List.of(entry));
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);

        assertThat(Arrays.copyOfRange(b.array(), 0, 4)).isEqualTo(Keys.utf8("RBWL"));
        assertThat(b.getInt(0)).isEqualTo(WalFormat.MAGIC);
        assertThat(b.getInt(4)).isEqualTo(2); // version
        byte[] payload = EntryFormat.toBytes(entry);
        assertThat(b.getInt(SEGMENT_HEADER + 4)).isEqualTo(payload.length); // length
        assertThat(b.get(SEGMENT_HEADER + 8)).isEqualTo((byte) 1); // type FULL
        assertThat(Arrays.copyOfRange(b.array(), SEGMENT_HEADER + RECORD_HEADER, b.capacity()))
                .isEqualTo(payload);
        CRC32C crc = new CRC32C();
        crc.update(b.array(), SEGMENT_HEADER + 4, RECORD_HEADER - 4 + payload.length); // length, type, payload
        assertThat(b.getInt(SEGMENT_HEADER)).isEqualTo((int) crc.getValue());
    }

    @Test
    void truncatedTailIsIgnored() throws IOException {
        List<Entry> entries = writeSegment(threeEntries());
        byte[] bytes = Files.readAllBytes(file);
        long lastStart = offsets.get(2);

        for (long cut = lastStart; cut < bytes.length; cut++) {
            Path truncated = copyWith(Arrays.copyOf(bytes, (int) cut));
            WalReader.ReplayResult[] result = new WalReader.ReplayResult[1];

            List<Entry> replayed = replayAll(truncated, result);

            assertThat(replayed).as("cut at %d", cut).containsExactlyElementsOf(entries.subList(0, 2));
            assertThat(result[0].tornTail()).as("cut at %d", cut).isEqualTo(cut > lastStart);
            assertThat(result[0].validBytes()).isEqualTo(lastStart);
        }
    }

    @Test
    void segmentCutInsideItsHeaderIsATornTailWithNoRecords() throws IOException {
        writeSegment(threeEntries());
        byte[] bytes = Files.readAllBytes(file);

        for (int cut = 0; cut < SEGMENT_HEADER; cut++) {
            WalReader.ReplayResult[] result = new WalReader.ReplayResult[1];
            assertThat(replayAll(copyWith(Arrays.copyOf(bytes, cut)), result)).isEmpty();
            assertThat(result[0]).isEqualTo(new WalReader.ReplayResult(0, cut, true));
        }
    }

    @Test
    void checksumMismatchInTheMiddleIsCorruption() throws IOException {
        writeSegment(threeEntries());
        byte[] bytes = Files.readAllBytes(file);
        long second = offsets.get(1);

        for (long at : new long[] {second, second + 3, second + RECORD_HEADER, offsets.get(2) - 1}) {
            Path damaged = copyWith(flip(bytes, at));
            List<Entry> replayed = new ArrayList<>();

            assertThatThrownBy(() -> WalReader.replay(damaged, replayed::add))
                    .as("flip at %d", at)
                    .isInstanceOf(CorruptionException.class)
                    .hasMessageContaining("checksum mismatch")
                    .satisfies(
                            e -> assertThat(((CorruptionException) e).offset()).isEqualTo(second));
            assertThat(replayed).containsExactlyElementsOf(threeEntries().subList(0, 1));
        }
    }

    @Test
    void checksumMismatchInTheLastRecordIsATornTail() throws IOException {
        List<Entry> entries = writeSegment(threeEntries());
        byte[] bytes = Files.readAllBytes(file);
        long last = offsets.get(2);

        for (long at : new long[] {last, last + RECORD_HEADER + 5, bytes.length - 1}) {
            WalReader.ReplayResult[] result = new WalReader.ReplayResult[1];
            assertThat(replayAll(copyWith(flip(bytes, at)), result)).containsExactlyElementsOf(entries.subList(0, 2));
            assertThat(result[0]).isEqualTo(new WalReader.ReplayResult(2, last, true));
        }
    }

    @Test
    void damagedLengthInTheMiddleIsCorruptionEvenWhenItPointsPastTheEnd() throws IOException {
        writeSegment(threeEntries());
        byte[] bytes = Files.readAllBytes(file);
        long second = offsets.get(1);
        byte[] damaged = bytes.clone();
        damaged[(int) second + 4 + 1] ^= 0x01; // length += 256: now runs past the end of the file

        assertThatThrownBy(() -> WalReader.replay(copyWith(damaged), e -> {}))
                .isInstanceOf(CorruptionException.class)
                .hasMessageContaining("disagrees with its entry")
                .satisfies(e -> assertThat(((CorruptionException) e).offset()).isEqualTo(second));
    }

    @Test
    void unknownRecordTypeInTheMiddleIsCorruption() throws IOException {
        writeSegment(threeEntries());
        byte[] bytes = Files.readAllBytes(file);
        long second = offsets.get(1);
        byte[] damaged = bytes.clone();
        damaged[(int) second + 8] = 2; // type 2 is not defined
        rewriteCrc(damaged, second, offsets.get(2));

        assertThatThrownBy(() -> WalReader.replay(copyWith(damaged), e -> {}))
                .isInstanceOf(CorruptionException.class)
                .hasMessageContaining("unknown record type 2");
    }

    @Test
    void invalidEntryWithAGoodChecksumInTheMiddleIsCorruption() throws IOException {
        writeSegment(threeEntries());
        byte[] bytes = Files.readAllBytes(file);
        long second = offsets.get(1);
        byte[] damaged = bytes.clone();
        damaged[(int) second + RECORD_HEADER] = (byte) 0x80; // entry flags: unknown bit
        rewriteCrc(damaged, second, offsets.get(2));

        assertThatThrownBy(() -> WalReader.replay(copyWith(damaged), e -> {}))
                .isInstanceOf(CorruptionException.class)
                .hasMessageContaining("invalid entry");
    }

    @Test
    void trailingZerosAreATornTail() throws IOException {
        List<Entry> entries = writeSegment(threeEntries());
        byte[] bytes = Files.readAllBytes(file);

        for (int zeros : new int[] {1, RECORD_HEADER - 1, RECORD_HEADER, 4096}) {
            WalReader.ReplayResult[] result = new WalReader.ReplayResult[1];
            assertThat(replayAll(copyWith(Arrays.copyOf(bytes, bytes.length + zeros)), result))
                    .containsExactlyElementsOf(entries);
            assertThat(result[0]).isEqualTo(new WalReader.ReplayResult(3, bytes.length, true));
        }
    }

    @Test
    void zerosFollowedByDataAreCorruption() throws IOException {
        writeSegment(threeEntries());
        byte[] bytes = Files.readAllBytes(file);
        long second = offsets.get(1);
        byte[] damaged = bytes.clone();
        Arrays.fill(damaged, (int) second, (int) (long) offsets.get(2), (byte) 0); // a hole where record 2 was

        assertThatThrownBy(() -> WalReader.replay(copyWith(damaged), e -> {}))
                .isInstanceOf(CorruptionException.class)
                .hasMessageContaining("zero record header")
                .satisfies(e -> assertThat(((CorruptionException) e).offset()).isEqualTo(second));
    }

    @Test
    void unknownMagicOrVersionIsRefused() throws IOException {
        writeSegment(threeEntries());
        byte[] bytes = Files.readAllBytes(file);

        byte[] badMagic = flip(bytes, 0);
        assertThatThrownBy(() -> WalReader.replay(copyWith(badMagic), e -> {}))
                .isInstanceOf(CorruptionException.class)
                .hasMessageContaining("not a WAL segment");

        byte[] version3 = bytes.clone();
        version3[4] = 3;
        assertThatThrownBy(() -> WalReader.replay(copyWith(version3), e -> {}))
                .isInstanceOf(CorruptionException.class)
                .hasMessageContaining("unknown WAL format version 3");

        byte[] shortForeign = Keys.utf8("RBX");
        assertThatThrownBy(() -> WalReader.replay(copyWith(shortForeign), e -> {}))
                .isInstanceOf(CorruptionException.class)
                .hasMessageContaining("not a WAL segment");

        assertThatThrownBy(() -> WalReader.replay(copyWith(Keys.utf8("hello, world\n")), e -> {}))
                .isInstanceOf(CorruptionException.class);
    }

    /** Recomputes the checksum of the record at {@code [start, end)} after a deliberate edit. */
    private static void rewriteCrc(byte[] bytes, long start, long end) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, (int) start + 4, (int) (end - start - 4));
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putInt((int) start, (int) crc.getValue());
    }
}
