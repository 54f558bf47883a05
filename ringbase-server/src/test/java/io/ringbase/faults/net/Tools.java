package io.ringbase.faults.net;

import java.util.ArrayList;
import java.util.List;

/**
 * Makes sure the suite can run: root, and the commands it uses ({@code ip} and {@code tc} from iproute2,
 * {@code iptables}, {@code nsenter}, {@code kill}, {@code mount}), installing Debian's iproute2 and
 * iptables packages when missing. Fails loudly, never skips: a suite that cannot run must not pass.
 */
public final class Tools {

    static final List<String> COMMANDS = List.of("ip", "tc", "iptables", "nsenter", "kill", "mount", "umount");

    private Tools() {
    }

    /**
     * Checks that this runs as root and that {@link #COMMANDS} are there, installing iproute2 and iptables if not.
     *
     * @throws IllegalStateException if not root, or a command is still missing after installing
     */
    public static void ensure() {
        String uid = Shell.run("id", "-u").strip();
        if (!uid.equals("0")) {
            throw new IllegalStateException("the fault-injection suite needs root (network namespaces, iptables, "
                    + "mounts); id -u is " + uid + ". Run as root, or leave it out with -DexcludedGroups=faults-short");
        }
        if (!missing().isEmpty()) {
            Shell.Result install = Shell.tryRun("apt-get", "install", "-y", "-q", "iproute2", "iptables");
            if (install.exit() != 0) {
                Shell.tryRun("apt-get", "update", "-q");
                install = Shell.tryRun("apt-get", "install", "-y", "-q", "iproute2", "iptables");
            }
            List<String> still = missing();
            if (!still.isEmpty()) {
                throw new IllegalStateException("the fault-injection suite needs " + still
                        + "; apt-get install iproute2 iptables said: " + install.output().strip());
            }
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
