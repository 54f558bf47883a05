package io.ringbase.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every reference in the project's documentation resolves: README.md, docs/*.md, bench/README.md and
 * bench/RESULTS.md (the dated log under bench/log/ is history, kept as written, and not checked).
 *
 * <p>Rules, outside fenced code blocks:
 * <ul>
 *   <li>A link {@code [text](target)} without a scheme ({@code https:}, {@code mailto:}, ...) names a file
 *       or directory relative to the document's directory, which must exist. Its {@code #anchor}, if any,
 *       must be a heading of the linked Markdown file (or of the document itself for {@code (#anchor)}),
 *       made into an anchor as GitHub does: lower case, punctuation but {@code -} and {@code _} dropped,
 *       spaces as {@code -}, {@code -1}, {@code -2} ... after repeats.</li>
 *   <li>A code span that is, or begins with (a command line), a relative path of two or more segments
 *       ({@code bin/ringbase}, {@code docs/format.md}, {@code lua/walk.lua},
 *       {@code bench/http-bench.sh --rounds 5}), not ending in {@code /} (a directory), is a
 *       repository path when its first segment is an entry of the repository's root (resolved there) or
 *       else of the document's directory (resolved there); it must exist. Paths into what the root
 *       {@code .gitignore} ignores (build output such as {@code target/}, {@code bench/.cache/}) and the
 *       release's own layout ({@code lib/ringbase.jar}, {@code conf/logback.xml}, whose first segments are
 *       not entries of the root) are not repository paths, nor is a first word holding anything
 *       but path characters ({@code <placeholders>}, {@code *}, {@code :}, {@code =}). A path of a
 *       Markdown file is a repository path whatever its first segment ({@code shared/STACK.md} is checked,
 *       from the root).</li>
 * </ul>
 * The repository root is the nearest directory at or above the working directory that holds {@code mvnw}, so
 * the test runs the same from the module (as Surefire does) or from the root.
 */
class DocLinksTest {

    private static final Pattern LINK =
            Pattern.compile("!?\\[[^\\]]*\\]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)");
    private static final Pattern CODE_SPAN = Pattern.compile("(`+)(.+?)\\1", Pattern.DOTALL);
    private static final Pattern PATH = Pattern.compile("(?:\\./)?[A-Za-z0-9_.+-]+(?:/[A-Za-z0-9_.+-]+)+");
    private static final Pattern MARKDOWN = Pattern.compile("[A-Za-z0-9_.+-]+(?:/[A-Za-z0-9_.+-]+)*\\.md");
    private static final Pattern SCHEME = Pattern.compile("[A-Za-z][A-Za-z0-9+.-]*:.*");
    private static final Pattern HEADING = Pattern.compile("#{1,6}\\s+(.*?)\\s*#*\\s*");

    private final Path root = findRoot();
    private final Set<String> ignoredNames = new HashSet<>();
    private final List<String> ignoredPrefixes = new ArrayList<>();
    private final Map<Path, Set<String>> anchors = new HashMap<>();

    @Test
    @Timeout(30)
    void everyLinkAndRepositoryPathInTheDocsResolves() throws IOException {
        readGitignore();
        List<Path> docs = documents();
        assertThat(docs)
                .as("documents found under %s", root)
                .contains(root.resolve("README.md"), root.resolve("docs/design.md"), root.resolve("bench/README.md"));
        List<String> problems = new ArrayList<>();
        int checked = 0;
        for (Path doc : docs) {
            checked += check(doc, problems);
        }
        assertThat(problems).as("unresolved references (%d checked)", checked).isEmpty();
        assertThat(checked).as("references checked").isGreaterThan(50);
    }

    @Test
    @Timeout(10)
    void headingsBecomeAnchorsAsOnGitHub() {
        assertThat(slug("8. RocksDB engine (`--engine rocksdb`)")).isEqualTo("8-rocksdb-engine---engine-rocksdb");
        assertThat(slug("Memory budget of a node")).isEqualTo("memory-budget-of-a-node");
        assertThat(slug("engine-bench.sh")).isEqualTo("engine-benchsh");
        assertThat(slug("The launcher and the JVM")).isEqualTo("the-launcher-and-the-jvm");
    }

    /** The nearest directory at or above the working directory that holds {@code mvnw}. */
    static Path findRoot() {
        Path dir = Path.of("").toAbsolutePath();
        for (Path d = dir; d != null; d = d.getParent()) {
            if (Files.isRegularFile(d.resolve("mvnw"))) {
                return d;
            }
        }
        throw new IllegalStateException("no directory holding mvnw at or above " + dir);
    }

    private List<Path> documents() throws IOException {
        List<Path> out = new ArrayList<>();
        out.add(root.resolve("README.md"));
        try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
            docs.filter(p -> p.getFileName().toString().endsWith(".md"))
                    .sorted()
                    .forEach(out::add);
        }
        out.add(root.resolve("bench/README.md"));
        out.add(root.resolve("bench/RESULTS.md"));
        return out;
    }

    /** Directory patterns of the root .gitignore: a bare {@code name/} matches at any depth, {@code a/b/} at the root. */
    private void readGitignore() throws IOException {
        Path file = root.resolve(".gitignore");
        if (!Files.exists(file)) {
            return;
        }
        for (String line : Files.readAllLines(file)) {
            String p = line.strip();
            if (p.isEmpty() || p.startsWith("#") || p.startsWith("!") || !p.endsWith("/") || p.contains("*")) {
                continue;
            }
            p = p.substring(0, p.length() - 1);
            if (p.startsWith("/")) {
                ignoredPrefixes.add(p.substring(1) + "/");
            } else if (p.contains("/")) {
                ignoredPrefixes.add(p + "/");
            } else {
                ignoredNames.add(p);
            }
        }
    }

    /** Checks one document; returns how many references it checked. */
    private int check(Path doc, List<String> problems) throws IOException {
        String name = root.relativize(doc).toString();
        int checked = 0;
        for (Paragraph para : paragraphs(Files.readAllLines(doc))) {
            StringBuilder prose = new StringBuilder(para.text);
            Matcher code = CODE_SPAN.matcher(para.text);
            while (code.find()) {
                String span = code.group(2).strip().split("\\s+", 2)[0]; // a command line: its program
                if (isRepositoryPath(span, doc)) {
                    checked++;
                    if (!Files.exists(resolvePath(span, doc))) {
                        problems.add(
                                name + ":" + para.lineOf(code.start()) + ": `" + span + "` is not in the repository");
                    }
                }
                for (int i = code.start(); i < code.end(); i++) {
                    if (prose.charAt(i) != '\n') {
                        prose.setCharAt(i, ' '); // links inside code spans are not links
                    }
                }
            }
            Matcher link = LINK.matcher(prose);
            while (link.find()) {
                String target = link.group(1);
                if (SCHEME.matcher(target).matches()) {
                    continue;
                }
                checked++;
                String problem = checkLink(doc, target);
                if (problem != null) {
                    problems.add(name + ":" + para.lineOf(link.start()) + ": (" + target + ") " + problem);
                }
            }
        }
        return checked;
    }

    private String checkLink(Path doc, String target) throws IOException {
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        String anchor = hash < 0 ? null : target.substring(hash + 1);
        Path resolved = file.isEmpty() ? doc : doc.getParent().resolve(file).normalize();
        if (!resolved.startsWith(root)) {
            return "points outside the repository";
        }
        if (!Files.exists(resolved)) {
            return "no such file or directory";
        }
        if (anchor != null
                && !anchor.isEmpty()
                && resolved.toString().endsWith(".md")
                && !anchorsOf(resolved).contains(anchor)) {
            return "no heading with anchor #" + anchor + " in " + root.relativize(resolved);
        }
        return null;
    }

    private boolean isRepositoryPath(String span, Path doc) {
        if (!PATH.matcher(span).matches() || span.endsWith("/")) {
            return false;
        }
        String path = span.startsWith("./") ? span.substring(2) : span;
        if (path.indexOf('/') <= 0 || path.startsWith(".")) {
            return false; // one segment (./mvnw), or hidden
        }
        String first = path.substring(0, path.indexOf('/'));
        boolean inRoot = Files.exists(root.resolve(first)) && !ignoredNames.contains(first);
        boolean inDocDir = Files.exists(doc.getParent().resolve(first)) && !ignoredNames.contains(first);
        if (!inRoot && !inDocDir && !MARKDOWN.matcher(path).matches()) {
            return false; // a document named by a path is always ours: shared/STACK.md must be in the repository
        }
        String fromRoot = inRoot || !inDocDir
                ? path
                : root.relativize(doc.getParent().resolve(path).normalize()).toString();
        for (String segment : fromRoot.split("/")) {
            if (ignoredNames.contains(segment)) {
                return false;
            }
        }
        for (String prefix : ignoredPrefixes) {
            if ((fromRoot + "/").startsWith(prefix)) {
                return false;
            }
        }
        return true;
    }

    private Path resolvePath(String span, Path doc) {
        String path = span.startsWith("./") ? span.substring(2) : span;
        String first = path.substring(0, path.indexOf('/'));
        boolean inDocDir = !Files.exists(root.resolve(first))
                && Files.exists(doc.getParent().resolve(first));
        return (inDocDir ? doc.getParent() : root).resolve(path).normalize();
    }

    private Set<String> anchorsOf(Path md) throws IOException {
        Set<String> known = anchors.get(md);
        if (known != null) {
            return known;
        }
        known = new HashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean fenced = false;
        for (String line : Files.readAllLines(md)) {
            if (line.strip().startsWith("```") || line.strip().startsWith("~~~")) {
                fenced = !fenced;
                continue;
            }
            Matcher h = HEADING.matcher(line);
            if (!fenced && h.matches()) {
                String base = slug(h.group(1));
                int n = seen.merge(base, 1, Integer::sum);
                known.add(n == 1 ? base : base + "-" + (n - 1));
            }
        }
        anchors.put(md, known);
        return known;
    }

    /** GitHub's anchor of a heading: lower case, punctuation but '-' and '_' dropped, each space a '-'. */
    static String slug(String heading) {
        StringBuilder out = new StringBuilder();
        for (int cp : heading.strip().toLowerCase(Locale.ROOT).codePoints().toArray()) {
            if (Character.isLetterOrDigit(cp) || cp == '-' || cp == '_') {
                out.appendCodePoint(cp);
            } else if (cp == ' ') {
                out.append('-');
            }
        }
        return out.toString();
    }

    /** A run of non-blank lines outside fenced code blocks, with the number of its first line. */
    private record Paragraph(String text, int firstLine) {
        int lineOf(int offset) {
            int line = firstLine;
            for (int i = 0; i < offset; i++) {
                if (text.charAt(i) == '\n') {
                    line++;
                }
            }
            return line;
        }
    }

    private static List<Paragraph> paragraphs(List<String> lines) {
        List<Paragraph> out = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        int first = -1;
        boolean fenced = false;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            String stripped = line.strip();
            boolean fence = stripped.startsWith("```") || stripped.startsWith("~~~");
            if (fence || fenced || stripped.isEmpty()) {
                if (first >= 0) {
                    out.add(new Paragraph(current.toString(), first));
                    current.setLength(0);
                    first = -1;
                }
                if (fence) {
                    fenced = !fenced;
                }
                continue;
            }
            if (first < 0) {
                first = i + 1;
            } else {
                current.append('\n');
            }
            current.append(line);
        }
        if (first >= 0) {
            out.add(new Paragraph(current.toString(), first));
        }
        return out;
    }
}
