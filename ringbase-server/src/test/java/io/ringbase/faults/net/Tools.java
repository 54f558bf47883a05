package io.ringbase.faults.net;

import java.util.ArrayList;
import java.util.List;

/**
 * Makes sure the suite can run: root, and the commands it uses ({@code ip} and {@code tc} from iproute2,
 * {@code iptables}, {@code nsenter}, {@code kill}, {@code mount}). Installs nothing: {@code .ci/run}
 * installs what is missing before the build. The suites' {@code @RootOnly @NeedsCommands} skip them
 * first where these are missing (or fail them in CI); this is the last check, and it fails loudly.
 */
public final class Tools {

    /** The commands the suite runs; the suites' {@code @NeedsCommands} name the same. */
    public static final List<String> COMMANDS = List.of("ip", "tc", "iptables", "nsenter", "kill", "mount", "umount");

    private Tools() {}

    /**
     * Checks that this runs as root and that the lab's commands are on the machine ({@code .ci/run} installs
     * them; tests never do).
     *
     * @throws IllegalStateException if not root, or a command is missing
     */
    public static void ensure() {
        String uid = Shell.run("id", "-u").strip();
        if (!uid.equals("0")) {
            throw new IllegalStateException("the fault-injection suite needs root (network namespaces, iptables, "
                    + "mounts); id -u is " + uid + ". Run as root, or leave it out with -DexcludedGroups=faults-short");
        }
        List<String> missing = missing();
        if (!missing.isEmpty()) {
            throw new IllegalStateException("the fault-injection suite needs " + missing
                    + ": install Debian's iproute2 and iptables (.ci/run does)");
        }
    }

    private static List<String> missing() {
        List<String> out = new ArrayList<>();
        for (String c : COMMANDS) {
            if (Shell.tryRun("sh", "-c", "command -v " + c).exit() != 0) {
                out.add(c);
            }
        }
        return out;
    }
}
