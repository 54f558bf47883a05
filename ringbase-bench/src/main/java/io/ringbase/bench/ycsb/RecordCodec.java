package io.ringbase.bench.ycsb;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * How a YCSB record (field name to bytes) is stored as one Ringbase value. Self-delimiting, so records can be
 * read back to back from a range scan's body:
 * <pre>
 * record  = count:u16 field*count
 * field   = nameLen:u16 name:bytes(UTF-8) valueLen:u32 value:bytes
 * </pre>
 * All integers big-endian.
 */
public final class RecordCodec {

    private RecordCodec() {}

    /** Encodes {@code fields} (at most 65,535, names at most 65,535 bytes). */
    public static byte[] encode(Map<String, byte[]> fields) {
        ByteArrayOutputStream buf = new ByteArrayOutputStream(fields.size() * 120 + 2);
        try (DataOutputStream out = new DataOutputStream(buf)) {
            out.writeShort(fields.size());
            for (Map.Entry<String, byte[]> f : fields.entrySet()) {
                byte[] name = f.getKey().getBytes(StandardCharsets.UTF_8);
                out.writeShort(name.length);
                out.write(name);
                out.writeInt(f.getValue().length);
                out.write(f.getValue());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return buf.toByteArray();
    }

    /**
     * Reads one record from {@code in}, keeping only {@code wanted} fields (all when null).
     *
     * @throws EOFException if the stream ends inside the record
     * @throws IOException  if the bytes are not a record
     */
    public static Map<String, byte[]> decode(InputStream in, Set<String> wanted) throws IOException {
        DataInputStream data = new DataInputStream(in);
        int count = data.readUnsignedShort();
        Map<String, byte[]> out = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            byte[] name = data.readNBytes(data.readUnsignedShort());
            int len = data.readInt();
            if (len < 0) {
                throw new IOException("not a YCSB record: field length " + len);
            }
            byte[] value = data.readNBytes(len);
            if (value.length != len) {
                throw new EOFException("record cut off in field " + i);
            }
            String n = new String(name, StandardCharsets.UTF_8);
            if (wanted == null || wanted.contains(n)) {
                out.put(n, value);
            }
        }
        return out;
    }
}
