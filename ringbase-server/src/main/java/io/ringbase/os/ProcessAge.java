package io.ringbase.os;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * How long ago this process was launched, from Linux's {@code /proc}: the system's uptime
 * ({@code /proc/uptime}, in 10 ms steps) less the process's start time since boot ({@code /proc/self/stat}, field
 * 22, in clock ticks of 10 ms: {@code USER_HZ} is 100 on Linux). The JDK's
 * {@code ProcessHandle.Info.startInstant()} adds the boot time, which Linux gives in whole seconds, so its
 * age of a process is off by up to a second. The launcher script runs in the same process (it execs the
 * JVM), so its time counts too.
 */
public final class ProcessAge {

    /** Clock ticks per second of {@code /proc/<pid>/stat}'s times ({@code USER_HZ}; 100 on Linux). */
    static final int USER_HZ = 100;

    private ProcessAge() {}

    /** Milliseconds since this process was launched, to 10 ms; empty where {@code /proc} cannot be read. */
    public static OptionalLong millis() {
        try {
            String uptime = Files.readString(Path.of("/proc/uptime"), StandardCharsets.US_ASCII);
            String stat = Files.readString(Path.of("/proc/self/stat"), StandardCharsets.US_ASCII);
            return millis(uptime, stat);
        } catch (IOException | RuntimeException e) {
            return OptionalLong.empty();
        }
    }

    /**
     * The age from the text of {@code /proc/uptime} ({@code "12345.67 2345.10"}, seconds) and of
     * {@code /proc/self/stat}; empty if either is not as expected.
     */
    static OptionalLong millis(String uptime, String stat) {
        int afterName = stat.lastIndexOf(')'); // the command name, field 2, may hold spaces and parentheses
        String[] uptimeFields = uptime.strip().split("\\s+");
        if (afterName < 0 || uptimeFields.length == 0) {
            return OptionalLong.empty();
        }
        // after the name: field 3 (state) is index 0, so field 22 (starttime) is index 19
        String[] fields = stat.substring(afterName + 1).strip().split("\\s+");
        if (fields.length < 20) {
            return OptionalLong.empty();
        }
        try {
            long upMs = Math.round(Double.parseDouble(uptimeFields[0]) * 1000);
            long startMs = Long.parseLong(fields[19]) * 1000 / USER_HZ;
            return upMs >= startMs ? OptionalLong.of(upMs - startMs) : OptionalLong.empty();
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }
}
