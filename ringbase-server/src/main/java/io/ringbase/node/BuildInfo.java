package io.ringbase.node;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The version of this build, written by Maven into {@code io/ringbase/build.properties} (resource
 * filtering of {@code project.version}): what {@code --version}, {@code /v0/status} and the
 * {@code ringbase_build_info} metric report.
 */
public final class BuildInfo {

    private static final String VERSION = load();

    private BuildInfo() {}

    /** The project version, e.g. {@code 0.1.0}; {@code unknown} if the resource is missing (an IDE build). */
    public static String version() {
        return VERSION;
    }

    private static String load() {
        try (InputStream in = BuildInfo.class.getResourceAsStream("/io/ringbase/build.properties")) {
            if (in == null) {
                return "unknown";
            }
            Properties p = new Properties();
            p.load(in);
            String v = p.getProperty("version", "unknown");
            return v.startsWith("${") ? "unknown" : v;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
