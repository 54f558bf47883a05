package io.ringbase.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The storage packages' dependencies point one way: {@code storage.lsm} and {@code storage.rocksdb} use the
 * API in {@code storage}, never the reverse nor each other, and nothing in storage uses a package above
 * it. Checked on the sources' imports and qualified names, comments left out.
 */
class StorageLayeringTest {

    private static final Path MAIN = Path.of("src/main/java/io/ringbase/storage");
    /** Packages storage may use besides its own: the clock, the OS seams and log throttling. */
    private static final Pattern BELOW = Pattern.compile("io\\.ringbase\\.(clock|os|logging)\\.[A-Z]\\w*");
    private static final Pattern REFERENCE = Pattern.compile("io\\.ringbase\\.(?:[a-z]\\w*\\.)+[A-Z]\\w*");

    @Test
    void theApiUsesNoEngineAndNothingAboveStorage() throws IOException {
        assertThat(violations(MAIN, false, "io\\.ringbase\\.storage\\.[A-Z]\\w*")).isEmpty();
    }

    @Test
    void rocksDbUsesOnlyTheApi() throws IOException {
        assertThat(violations(MAIN.resolve("rocksdb"), true, "io\\.ringbase\\.storage\\.(rocksdb\\.)?[A-Z]\\w*"))
                .isEmpty();
    }

    @Test
    void theLsmEngineUsesOnlyTheApiAndItself() throws IOException {
        assertThat(violations(MAIN.resolve("lsm"), true, "io\\.ringbase\\.storage\\.(lsm(\\.[a-z]\\w*)*\\.)?[A-Z]\\w*"))
                .isEmpty();
    }

    /**
     * References to Ringbase classes in the sources in {@code dir} (and below it if {@code deep}) that are
     * neither {@code allowed} nor below storage.
     */
    private static List<String> violations(Path dir, boolean deep, String allowed) throws IOException {
        Pattern ok = Pattern.compile(allowed);
        List<String> out = new ArrayList<>();
        try (Stream<Path> files = deep ? Files.walk(dir) : Files.list(dir)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                String code = withoutComments(Files.readString(f));
                Matcher m = REFERENCE.matcher(code);
                while (m.find()) {
                    String ref = m.group();
                    if (!ok.matcher(ref).matches() && !BELOW.matcher(ref).matches()) {
                        out.add(MAIN.relativize(f) + ": " + ref);
                    }
                }
            }
        }
        return out;
    }

    private static String withoutComments(String source) {
        return source.replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("//[^\\n]*", "");
    }
}
