package io.ringbase.testing;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.lang.reflect.AnnotatedElement;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * What {@link RootOnly} and {@link NeedsCommands} ask of the machine. Where it is missing, a developer's
 * build skips the test and says so once per kind on the console (for example "skipping root-only tests:
 * not root; CI runs them"). In CI, where a suite that cannot run must not pass, the test fails instead:
 * CI is {@code RINGBASE_CI=1}, which {@code .ci/run} exports, or {@code CI=true}. The bench module's tests use
 * these classes too, through the server's test jar.
 */
public final class MachineRequirements implements ExecutionCondition {

    /** The lines already printed by this JVM. */
    private static final Set<String> SAID = ConcurrentHashMap.newKeySet();

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        AnnotatedElement element = context.getElement().orElse(null);
        if (element == null) {
            return ConditionEvaluationResult.enabled("nothing asked");
        }
        List<String> missing = new ArrayList<>();
        String line = null;
        if (AnnotationSupport.isAnnotated(element, RootOnly.class) && !isRoot()) {
            missing.add("root");
            line = "skipping root-only tests: not root; CI runs them";
        }
        List<String> commands = new ArrayList<>();
        AnnotationSupport.findAnnotation(element, NeedsCommands.class).ifPresent(n -> {
            for (String c : n.value()) {
                if (!onPath(c)) {
                    commands.add(c.replace("|", " or "));
                }
            }
        });
        if (!commands.isEmpty()) {
            missing.add(String.join(", ", commands));
            if (line == null) {
                line = "skipping tests that need " + String.join(", ", commands) + ": not on the PATH; CI installs it";
            }
        }
        if (missing.isEmpty()) {
            return ConditionEvaluationResult.enabled("root and commands present");
        }
        String needs = context.getDisplayName() + " needs " + String.join(" and ", missing);
        if (inCi()) {
            throw new IllegalStateException(needs + ". This is CI, where it must run rather than skip: "
                    + ".ci/run installs the commands, and the build must run as root");
        }
        if (SAID.add(line)) {
            // the fork's own stderr: Surefire and Failsafe put System.err in the report files, this on the console
            PrintStream console =
                    new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8);
            console.println(line);
        }
        return ConditionEvaluationResult.disabled(needs + "; CI runs it");
    }

    /** True in CI: {@code RINGBASE_CI=1} (or true), or {@code CI=true}. */
    static boolean inCi() {
        String ringbase = System.getenv("RINGBASE_CI");
        return "1".equals(ringbase)
                || "true".equalsIgnoreCase(ringbase)
                || "true".equalsIgnoreCase(System.getenv("CI"));
    }

    static boolean isRoot() {
        try {
            return (int) Files.getAttribute(Path.of("/proc/self"), "unix:uid") == 0;
        } catch (Exception e) { // no /proc or no unix view: not Linux, where the root-only tests do not run anyway
            return "root".equals(System.getProperty("user.name"));
        }
    }

    /** Whether {@code command} ({@code "a|b"}: either) is an executable on the {@code PATH}. */
    static boolean onPath(String command) {
        String path = System.getenv().getOrDefault("PATH", "");
        for (String name : command.split("\\|")) {
            for (String dir : path.split(java.io.File.pathSeparator)) {
                if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, name))) {
                    return true;
                }
            }
        }
        return false;
    }
}
