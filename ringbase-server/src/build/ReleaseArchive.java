import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.tukaani.xz.LZMA2Options;
import org.tukaani.xz.XZOutputStream;

/**
 * Turns the assembly's plain release tar into the release tarball {@code ringbase-<version>.tar.xz}: every
 * jar in it is rewritten with its entries stored (not deflated), and the whole tar is compressed with xz at
 * its highest preset.
 *
 * <p>Why: the jars are zip files, each compressed on its own, so compressing the tar again gains nothing,
 * and the classes of different jars (Ratis's shaded gRPC, Netty, protobuf and Guava beside our own Netty and
 * protobuf users) never share a dictionary. Stored, they do: the tarball shrinks to about half of the
 * {@code tar.gz} of deflated jars, and the unpacked jars are about 2.7 times larger (the JVM reads a stored
 * entry without inflating it). Entry names, order, times and the other files of the tar are kept as they
 * are; entries of a jar that match {@code --drop} (native libraries of other operating systems) are left out.
 *
 * <p>Run by the build (antrun, the {@code package} phase) with commons-compress and xz-java on the class
 * path: {@code java -cp CP ReleaseArchive.java IN.tar OUT.tar.xz [--drop REGEX]...}. Exits 1 with a line on
 * standard error on any failure, leaving no partial output.
 */
public final class ReleaseArchive {

    private ReleaseArchive() {}

    public static void main(String[] args) throws IOException {
        if (args.length < 2) {
            System.err.println("usage: ReleaseArchive IN.tar OUT.tar.xz [--drop REGEX]...");
            System.exit(1);
        }
        Path in = Path.of(args[0]);
        Path out = Path.of(args[1]);
        List<Pattern> drops = new ArrayList<>();
        for (int i = 2; i < args.length; i += 2) {
            if (!args[i].equals("--drop") || i + 1 >= args.length) {
                System.err.println("ReleaseArchive: unexpected argument " + args[i]);
                System.exit(1);
            }
            drops.add(Pattern.compile(args[i + 1]));
        }
        Path partial = out.resolveSibling(out.getFileName() + ".partial");
        try {
            write(in, partial, drops);
            Files.move(partial, out, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(partial);
            System.err.println("ReleaseArchive: " + in + " -> " + out + " failed: " + e);
            System.exit(1);
        }
    }

    private static void write(Path in, Path out, List<Pattern> drops) throws IOException {
        // preset 9 with xz's "extreme" match finder settings (xz -9e): the tar is about 70 MB, well inside
        // the 64 MiB dictionary's reach for the shared classes
        LZMA2Options options = new LZMA2Options(LZMA2Options.PRESET_MAX);
        options.setNiceLen(LZMA2Options.NICE_LEN_MAX);
        options.setDepthLimit(512);
        try (InputStream raw = new BufferedInputStream(Files.newInputStream(in));
                TarArchiveInputStream tarIn = new TarArchiveInputStream(raw);
                OutputStream file = new BufferedOutputStream(Files.newOutputStream(out));
                XZOutputStream xz = new XZOutputStream(file, options);
                TarArchiveOutputStream tarOut = new TarArchiveOutputStream(xz)) {
            tarOut.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
            tarOut.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
            TarArchiveEntry entry;
            while ((entry = tarIn.getNextEntry()) != null) {
                if (entry.isFile() && entry.getName().endsWith(".jar")) {
                    byte[] stored = storedJar(tarIn.readAllBytes(), drops);
                    // a copy: the input stream finds the next header from the entry's own size
                    TarArchiveEntry copy = new TarArchiveEntry(entry.getName());
                    copy.setMode(entry.getMode());
                    copy.setModTime(entry.getModTime());
                    copy.setUserId(entry.getLongUserId());
                    copy.setGroupId(entry.getLongGroupId());
                    copy.setUserName(entry.getUserName());
                    copy.setGroupName(entry.getGroupName());
                    copy.setSize(stored.length);
                    tarOut.putArchiveEntry(copy);
                    tarOut.write(stored);
                } else {
                    tarOut.putArchiveEntry(entry);
                    if (entry.isFile()) {
                        tarIn.transferTo(tarOut);
                    }
                }
                tarOut.closeArchiveEntry();
            }
            tarOut.finish();
        }
    }

    /** The same jar with every entry stored; entries whose name matches one of {@code drops} left out. */
    static byte[] storedJar(byte[] jar, List<Pattern> drops) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(jar.length * 3);
        try (ZipInputStream zipIn = new ZipInputStream(new ByteArrayInputStream(jar));
                ZipOutputStream zipOut = new ZipOutputStream(bytes)) {
            zipOut.setMethod(ZipOutputStream.STORED);
            ZipEntry source;
            while ((source = zipIn.getNextEntry()) != null) {
                String name = source.getName();
                if (drops.stream().anyMatch(p -> p.matcher(name).matches())) {
                    continue;
                }
                byte[] data = zipIn.readAllBytes();
                CRC32 crc = new CRC32();
                crc.update(data);
                ZipEntry target = new ZipEntry(name);
                target.setMethod(ZipEntry.STORED);
                target.setSize(data.length);
                target.setCompressedSize(data.length);
                target.setCrc(crc.getValue());
                target.setTime(source.getTime());
                if (source.getComment() != null) {
                    target.setComment(source.getComment());
                }
                zipOut.putNextEntry(target);
                zipOut.write(data);
                zipOut.closeEntry();
            }
        }
        return bytes.toByteArray();
    }
}
