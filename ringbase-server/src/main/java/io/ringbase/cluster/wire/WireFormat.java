package io.ringbase.cluster.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.FastThreadLocal;
import io.ringbase.storage.Entry;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/**
 * The constants and codecs of the binary node-to-node protocol, byte by byte as in
 * docs/internal-protocol-v2.md: the connection magic, the frame layout with its CRC32C, the opcodes
 * and error codes (persisted: never renumber), and the entry encoding of the HTTP internal API
 * ({@code io.ringbase.cluster.rpc.EntryCodec}) read from and written to Netty buffers directly, so a
 * value goes from the socket's buffer into the entry with one copy. Integers are little-endian.
 * Stateless.
 */
public final class WireFormat {

    private WireFormat() {}

    /** First bytes each side sends: {@code \x89RBW\r\n\x1a\n}. No HTTP method starts with {@code 0x89}. */
    static final byte[] MAGIC = {(byte) 0x89, 'R', 'B', 'W', '\r', '\n', 0x1A, '\n'};

    /** Lowest and highest protocol version this node speaks. */
    static final int MIN_VERSION = 1;

    static final int MAX_VERSION = 2;

    /** The first version with the PAXOS call ({@link #OP_PAXOS}); version 1 connections send it over HTTP. */
    static final int PAXOS_VERSION = 2;

    /** Frame header: length, crc32c, request id, opcode, flags. */
    static final int FRAME_HEADER_SIZE = 4 + 4 + 4 + 1 + 1;

    /** Bytes a frame's length field counts besides the body: crc, id, op, flags. */
    static final int LENGTH_OVERHEAD = 4 + 4 + 1 + 1;

    /** Largest value of a frame's length field, bytes: a 16 MiB value and a 64 KiB key, with room. */
    public static final int MAX_FRAME_BYTES = 32 << 20;

    /** Bytes of a handshake nonce. */
    static final int NONCE_BYTES = 16;

    // request opcodes (persisted)
    static final byte OP_READ = 0x01;
    static final byte OP_VERSION = 0x02;
    static final byte OP_WRITE = 0x03;
    static final byte OP_PING = 0x04;
    static final byte OP_EPOCH = 0x05;
    static final byte OP_PAXOS = 0x06; // version 2 on
    // handshake opcodes (persisted)
    static final byte OP_CLIENT_HELLO = 0x10;
    static final byte OP_SERVER_HELLO = 0x11;
    static final byte OP_CLIENT_AUTH = 0x12;
    static final byte OP_READY = 0x13;
    static final byte OP_REFUSED = 0x1F;
    // answer opcodes (persisted)
    static final byte OP_FOUND = (byte) 0x81;
    static final byte OP_ABSENT = (byte) 0x82;
    static final byte OP_VERSION_IS = (byte) 0x83;
    static final byte OP_PONG = (byte) 0x84;
    static final byte OP_PAXOS_REPLY = (byte) 0x85; // version 2 on
    static final byte OP_ERROR = (byte) 0xE0;

    // error codes of OP_ERROR (persisted)
    static final int ERR_FAILED = 1;
    static final int ERR_REFUSED = 2;
    static final int ERR_BAD_REQUEST = 3;
    static final int ERR_OVERLOADED = 4;
    static final int ERR_UNKNOWN_OP = 5;

    /** Entry header: flags, version, expiresAt, keyLength, valueLength (as {@code EntryCodec}). */
    static final int ENTRY_HEADER_SIZE = 1 + 8 + 8 + 4 + 4;

    private static final int FLAG_TOMBSTONE = 1;
    private static final int FLAG_EXPIRY = 2;
    /** The value starts with a content type prefix (storage.ContentType); never with a tombstone. */
    private static final int FLAG_TYPED = 4;

    /** Bytes {@code e} takes encoded. */
    static long entrySize(Entry e) {
        return (long) ENTRY_HEADER_SIZE + e.key().length + (e.value() == null ? 0 : e.value().length);
    }

    /** Appends {@code e} to {@code out}. */
    static void writeEntry(ByteBuf out, Entry e) {
        byte[] value = e.value();
        out.writeByte((e.isTombstone() ? FLAG_TOMBSTONE : 0)
                | (e.hasExpiry() ? FLAG_EXPIRY : 0)
                | (e.typed() ? FLAG_TYPED : 0));
        out.writeLongLE(e.version());
        out.writeLongLE(e.hasExpiry() ? e.expiresAtMs() : 0);
        out.writeIntLE(e.key().length);
        out.writeIntLE(value == null ? 0 : value.length);
        out.writeBytes(e.key());
        if (value != null) {
            out.writeBytes(value);
        }
    }

    /**
     * Reads an entry that fills {@code in}'s readable bytes exactly.
     *
     * @throws IllegalArgumentException with the rules of {@code EntryCodec.checkedSize}, or if bytes are
     *                                  left over or missing
     */
    static Entry readEntry(ByteBuf in) {
        if (in.readableBytes() < ENTRY_HEADER_SIZE) {
            throw new IllegalArgumentException("entry of " + in.readableBytes() + " bytes is shorter than its header");
        }
        int flags = in.readUnsignedByte();
        if ((flags & ~(FLAG_TOMBSTONE | FLAG_EXPIRY | FLAG_TYPED)) != 0) {
            throw new IllegalArgumentException("unknown entry flags 0x" + Integer.toHexString(flags));
        }
        long version = in.readLongLE();
        long expiresAt = in.readLongLE();
        if ((flags & FLAG_EXPIRY) != 0 ? expiresAt <= 0 : expiresAt != 0) {
            throw new IllegalArgumentException("expiry " + expiresAt + " does not match flags");
        }
        long keyLength = in.readUnsignedIntLE();
        long valueLength = in.readUnsignedIntLE();
        if (keyLength > Entry.MAX_KEY_BYTES) {
            throw new IllegalArgumentException("key length " + keyLength + " exceeds " + Entry.MAX_KEY_BYTES);
        }
        if ((flags & FLAG_TOMBSTONE) != 0 && valueLength != 0) {
            throw new IllegalArgumentException("tombstone with value length " + valueLength);
        }
        if (keyLength + valueLength != in.readableBytes()) {
            throw new IllegalArgumentException("entry lengths " + keyLength + " + " + valueLength + " do not fill the "
                    + in.readableBytes() + " bytes left");
        }
        byte[] key = new byte[(int) keyLength];
        in.readBytes(key);
        byte[] value = null;
        if ((flags & FLAG_TOMBSTONE) == 0) {
            value = new byte[(int) valueLength];
            in.readBytes(value);
        }
        // the Entry checks a typed value's prefix (IllegalArgumentException) and that a tombstone is untyped
        return new Entry(
                key,
                version,
                (flags & FLAG_EXPIRY) != 0 ? expiresAt : Entry.NO_EXPIRY,
                value,
                (flags & FLAG_TYPED) != 0);
    }

    /**
     * A buffer holding a frame's header with {@code bodyBytes} of room after it; write the body, then
     * {@link #seal} it.
     */
    static ByteBuf frame(ByteBufAllocator alloc, int id, byte op, int bodyBytes) {
        ByteBuf out = alloc.ioBuffer(FRAME_HEADER_SIZE + bodyBytes);
        out.writeIntLE(LENGTH_OVERHEAD + bodyBytes);
        out.writeIntLE(0); // crc, set by seal
        out.writeIntLE(id);
        out.writeByte(op);
        out.writeByte(0); // flags
        return out;
    }

    /**
     * Sets the length and CRC32C of the frame that starts at {@code out}'s reader index.
     *
     * @throws IllegalArgumentException if the frame passes {@link #MAX_FRAME_BYTES}
     */
    static ByteBuf seal(ByteBuf out) {
        int start = out.readerIndex();
        int length = out.writerIndex() - start - 4;
        if (length > MAX_FRAME_BYTES) {
            out.release();
            throw new IllegalArgumentException("frame of " + length + " bytes passes the maximum " + MAX_FRAME_BYTES);
        }
        out.setIntLE(start, length);
        out.setIntLE(start + 4, crc(out, start + 8, length - 4));
        return out;
    }

    /** Frames up to this many bytes are checksummed from a per-thread copy ({@link #crc}). */
    static final int CRC_SCRATCH_BYTES = 4096;

    /** One CRC32C and one scratch array per thread: {@link #crc} runs on event loops and workers for every frame. */
    private static final FastThreadLocal<CrcState> CRC = new FastThreadLocal<>() {
        @Override
        protected CrcState initialValue() {
            return new CrcState();
        }
    };

    private static final class CrcState {
        final CRC32C crc = new CRC32C();
        final byte[] scratch = new byte[CRC_SCRATCH_BYTES];
    }

    /**
     * CRC32C of {@code length} bytes of {@code buf} from {@code index}, without allocating for a frame of up to
     * {@link #CRC_SCRATCH_BYTES}: a heap buffer is read in place, and any other is copied into a per-thread
     * array first. The JDK's CRC32C reads direct memory only through a {@code ByteBuffer}, and Netty's
     * adaptive buffers hand out a new {@code DirectByteBuffer} slice for every {@code internalNioBuffer}
     * call: one per frame, about a tenth of the objects a replicated write allocated at its coordinator.
     * Copying a few hundred bytes costs less than that object. Larger frames take the buffer's NIO views.
     */
    static int crc(ByteBuf buf, int index, int length) {
        CrcState state = CRC.get();
        CRC32C crc = state.crc;
        crc.reset();
        if (buf.hasArray()) {
            crc.update(buf.array(), buf.arrayOffset() + index, length);
        } else if (length <= CRC_SCRATCH_BYTES) {
            buf.getBytes(index, state.scratch, 0, length);
            crc.update(state.scratch, 0, length);
        } else if (buf.nioBufferCount() == 1) {
            crc.update(buf.internalNioBuffer(index, length));
        } else {
            for (java.nio.ByteBuffer b : buf.nioBuffers(index, length)) {
                crc.update(b);
            }
        }
        return (int) crc.getValue();
    }

    /** Appends {@code s} as {@code str16}: u16 byte length, UTF-8 bytes (cut at 65,535 bytes). */
    static void writeString(ByteBuf out, String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        int n = Math.min(b.length, 0xFFFF);
        out.writeShortLE(n);
        out.writeBytes(b, 0, n);
    }

    /** Bytes {@code s} takes as {@code str16}. */
    static int stringSize(String s) {
        return 2 + Math.min(s.getBytes(StandardCharsets.UTF_8).length, 0xFFFF);
    }

    /**
     * Reads a {@code str16}.
     *
     * @throws IllegalArgumentException if it passes the end of {@code in}
     */
    static String readString(ByteBuf in) {
        if (in.readableBytes() < 2) {
            throw new IllegalArgumentException("string length passes the end");
        }
        int n = in.readUnsignedShortLE();
        if (n > in.readableBytes()) {
            throw new IllegalArgumentException("string of " + n + " bytes passes the end");
        }
        String s = in.toString(in.readerIndex(), n, StandardCharsets.UTF_8);
        in.skipBytes(n);
        return s;
    }

    /** The frame of an ERROR answer to request {@code id}. */
    static ByteBuf error(ByteBufAllocator alloc, int id, int code, String reason) {
        ByteBuf out = frame(alloc, id, OP_ERROR, 1 + stringSize(reason));
        out.writeByte(code);
        writeString(out, reason);
        return seal(out);
    }
}
