package io.ringbase.cluster.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.ringbase.cluster.rpc.EntryCodec;
import io.ringbase.cluster.rpc.InternalProtocol;
import io.ringbase.logging.LogCapture;
import io.ringbase.storage.Entry;
import io.ringbase.storage.TypedEntries;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The frame and entry codecs and the reader rules of docs/internal-protocol-v2.md, "Frame". */
class WireFormatTest {

    @RegisterExtension
    final LogCapture log = new LogCapture(FrameDecoder.class);

    private static final ByteBufAllocator ALLOC = ByteBufAllocator.DEFAULT;

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void entryEncodingIsTheHttpInternalApisByteForByte() {
        for (Entry e : List.of(
                Entry.value(bytes("k"), 42, bytes("value")),
                Entry.tombstone(bytes("gone"), 7),
                new Entry(bytes("ttl"), 9, 1_700_000_000_000L, bytes("v")),
                Entry.value(new byte[0], 1, new byte[0]))) {
            ByteBuf out = Unpooled.buffer();
            WireFormat.writeEntry(out, e);
            assertThat(ByteBufUtil.getBytes(out)).isEqualTo(InternalProtocol.encode(List.of(e)));
            assertThat(WireFormat.entrySize(e)).isEqualTo(out.readableBytes());
            assertThat(WireFormat.readEntry(out)).isEqualTo(e);
        }
    }

    @Test
    void entryThatDoesNotFillItsBodyIsRejected() {
        ByteBuf out = Unpooled.buffer();
        WireFormat.writeEntry(out, Entry.value(bytes("k"), 1, bytes("v")));
        out.writeByte(0); // one byte too many
        assertThatThrownBy(() -> WireFormat.readEntry(out)).hasMessageContaining("do not fill");
        ByteBuf flags = Unpooled.buffer();
        WireFormat.writeEntry(flags, Entry.value(bytes("k"), 1, bytes("v")));
        flags.setByte(0, 0x80);
        assertThatThrownBy(() -> WireFormat.readEntry(flags)).hasMessageContaining("unknown entry flags");
    }

    private static ByteBuf sampleFrame(int id) {
        ByteBuf f = WireFormat.frame(ALLOC, id, WireFormat.OP_READ, 3);
        f.writeBytes(bytes("key"));
        return WireFormat.seal(f);
    }

    private static EmbeddedChannel decoder() {
        EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder("test", true));
        ch.writeInbound(Unpooled.wrappedBuffer(WireFormat.MAGIC));
        return ch;
    }

    @Test
    void framesArriveWholeHoweverTheBytesAreSplit() {
        EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder("test", true));
        ByteBuf all = Unpooled.buffer().writeBytes(WireFormat.MAGIC);
        all.writeBytes(sampleFrame(1)).writeBytes(sampleFrame(2));
        while (all.isReadable()) {
            ch.writeInbound(all.readRetainedSlice(1)); // one byte at a time
        }
        for (int id = 1; id <= 2; id++) {
            FrameDecoder.Frame f = ch.readInbound();
            assertThat(f.id()).isEqualTo(id);
            assertThat(f.op()).isEqualTo(WireFormat.OP_READ);
            assertThat(f.body().toString(StandardCharsets.UTF_8)).isEqualTo("key");
            f.body().release();
        }
        assertThat(ch.isOpen()).isTrue();
    }

    @Test
    void checksumMismatchClosesTheConnection() {
        EmbeddedChannel ch = decoder();
        ByteBuf f = sampleFrame(1);
        f.setByte(f.writerIndex() - 1, 'X'); // a body byte flipped in transit
        ch.writeInbound(f);
        assertThat(ch.inboundMessages()).isEmpty();
        assertThat(ch.isOpen()).isFalse();
        assertThat(log.warningMessages()).singleElement().asString().contains("CRC32C");
    }

    @Test
    void oversizedFrameClosesTheConnectionBeforeItsBodyArrives() {
        EmbeddedChannel ch = decoder();
        ch.writeInbound(Unpooled.buffer().writeIntLE(WireFormat.MAX_FRAME_BYTES + 1)); // only the length
        assertThat(ch.isOpen()).isFalse();
        assertThat(log.warningMessages())
                .singleElement()
                .asString()
                .contains("over the maximum " + WireFormat.MAX_FRAME_BYTES);
    }

    @Test
    void frameShorterThanItsHeaderClosesTheConnection() {
        EmbeddedChannel ch = decoder();
        ch.writeInbound(Unpooled.buffer().writeIntLE(3).writeZero(3));
        assertThat(ch.isOpen()).isFalse();
        assertThat(log.warningMessages()).singleElement().asString().contains("under the header");
    }

    @Test
    void unknownFlagClosesTheConnection() {
        EmbeddedChannel ch = decoder();
        ByteBuf f = sampleFrame(1);
        f.setByte(13, 1);
        f.setIntLE(4, WireFormat.crc(f, 8, f.readableBytes() - 8)); // a valid CRC: the flag alone is wrong
        ch.writeInbound(f);
        assertThat(ch.isOpen()).isFalse();
        assertThat(log.warningMessages()).singleElement().asString().contains("unknown flags");
    }

    @Test
    void peerThatAnswersHttpDoesNotSpeakV2() {
        EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder("server", true));
        ch.writeInbound(Unpooled.wrappedBuffer(bytes("HTTP/1.1 400 Bad Request\r\n")));
        assertThat(ch.isOpen()).isFalse();
        assertThat(log.warningMessages()).singleElement().asString().contains("does not speak v2");
    }

    @Test
    void crcIsCrc32cOfTheRangeForEveryKindOfBufferAndCallAfterCall() {
        // within the per-thread copy, at its edge, and past it (the NIO views)
        for (int length : new int[] {250, WireFormat.CRC_SCRATCH_BYTES, WireFormat.CRC_SCRATCH_BYTES + 1, 10_000}) {
            byte[] bytes = new byte[length + 50];
            for (int i = 0; i < bytes.length; i++) {
                bytes[i] = (byte) (i * 31 + 7);
            }
            java.util.zip.CRC32C expected = new java.util.zip.CRC32C();
            expected.update(bytes, 10, length);
            int want = (int) expected.getValue();

            int half = bytes.length / 2;
            ByteBuf direct = ByteBufAllocator.DEFAULT.directBuffer(bytes.length).writeBytes(bytes);
            ByteBuf heap = Unpooled.wrappedBuffer(bytes);
            ByteBuf composite = Unpooled.wrappedBuffer(
                    Unpooled.wrappedBuffer(bytes, 0, half), Unpooled.wrappedBuffer(bytes, half, bytes.length - half));
            try {
                for (int round = 0; round < 2; round++) { // the per-thread CRC starts afresh each call
                    assertThat(WireFormat.crc(direct, 10, length))
                            .as("direct, %d", length)
                            .isEqualTo(want);
                    assertThat(WireFormat.crc(heap, 10, length))
                            .as("heap, %d", length)
                            .isEqualTo(want);
                    assertThat(WireFormat.crc(composite, 10, length))
                            .as("composite, %d", length)
                            .isEqualTo(want);
                    assertThat(WireFormat.crc(direct.slice(5, bytes.length - 5), 5, length))
                            .as("slice, %d", length)
                            .isEqualTo(want);
                    assertThat(WireFormat.crc(heap.slice(5, bytes.length - 5), 5, length))
                            .as("heap slice, %d", length)
                            .isEqualTo(want);
                }
                assertThat(direct.readerIndex()).isZero(); // the buffer's own indexes are untouched
                assertThat(direct.writerIndex()).isEqualTo(bytes.length);
            } finally {
                direct.release();
                heap.release();
                composite.release();
            }
        }
    }

    @Test
    void typedEntriesKeepTheirBitInBothInternalEncodings() {
        for (Entry e : TypedEntries.random(13, 100)) {
            ByteBuf out = Unpooled.buffer();
            WireFormat.writeEntry(out, e);
            byte[] http = InternalProtocol.encode(List.of(e));
            assertThat(ByteBufUtil.getBytes(out)).isEqualTo(http);
            Entry back = WireFormat.readEntry(out);
            assertThat(back).isEqualTo(e);
            assertThat(back.typed()).isEqualTo(e.typed());
            byte[] one = new byte[(int) EntryCodec.encodedSize(e)];
            EntryCodec.write(e, MemorySegment.ofArray(one), 0);
            Entry viaCodec = EntryCodec.read(MemorySegment.ofArray(one), 0, one.length);
            assertThat(viaCodec).isEqualTo(e);
            assertThat(viaCodec.typed()).isEqualTo(e.typed());
        }
    }
}
