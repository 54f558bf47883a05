package io.ringbase.auth;

import io.ringbase.reload.FileWatch;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The token file of {@code serve --token-file}, loaded at start and reloaded when it changes: a daemon
 * thread looks at its modification time and size every {@code pollMs} and parses it again when either
 * moved. A file that cannot be read or parsed keeps the tokens loaded before and logs one WARN line naming
 * the line number (never its text, which may hold a token); the same bad file is not reported again until
 * it changes. {@link #get()} is the tokens now in force. Thread-safe.
 *
 * <p>Replace the file by writing a new one and renaming it over the old ({@code mv}), so a reload never
 * sees half a file; an editor that rewrites in place may be seen mid-write, which at worst loads the
 * lines written so far until the next poll.
 */
public final class TokenFile implements Supplier<ClientTokens>, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(TokenFile.class);

    private final Path file;
    private final FileWatch watch;
    private volatile ClientTokens tokens;

    private TokenFile(Path file, ClientTokens tokens, FileWatch watch, long pollMs) {
        this.file = file;
        this.tokens = tokens;
        this.watch = watch;
        watch.start(pollMs, this::reload);
    }

    /**
     * Loads {@code file} and starts watching it.
     *
     * @param pollMs how often to look for a change, ms (at least 1)
     * @throws TokenFileException if the file cannot be read (line 0) or parsed
     */
    public static TokenFile open(Path file, long pollMs) throws TokenFileException {
        if (pollMs < 1) {
            throw new IllegalArgumentException("pollMs must be at least 1, got " + pollMs);
        }
        FileWatch watch = new FileWatch("token-file", List.of(file));
        ClientTokens tokens = read(file);
        log.info("loaded {} client tokens from {}", tokens.size(), file);
        return new TokenFile(file, tokens, watch, pollMs);
    }

    @Override
    public ClientTokens get() {
        return tokens;
    }

    /** Looks at the file once, as the poller does: for tests that drive the reload themselves. */
    public void pollNow() throws InterruptedException {
        watch.pollNow();
    }

    /** After a change of the file (its loss included): the new tokens, or the old ones and a WARN line. */
    private void reload() {
        try {
            ClientTokens loaded = read(file);
            tokens = loaded;
            log.info("reloaded {} client tokens from {}", loaded.size(), file);
        } catch (TokenFileException e) {
            log.warn("token file {} {}; keeping the {} tokens loaded before", file, e.getMessage(), tokens.size());
        } catch (RuntimeException e) { // never let the poller die: it would stop reloading for good
            log.warn("token file {} could not be reloaded ({}); keeping the tokens loaded before", file, e.toString());
        }
    }

    private static ClientTokens read(Path file) throws TokenFileException {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new TokenFileException(0, "cannot be read: " + describe(e));
        }
        String text;
        try {
            text = StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .decode(java.nio.ByteBuffer.wrap(bytes))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new TokenFileException(0, "is not UTF-8 text");
        }
        return ClientTokens.parse(text);
    }

    private static String describe(IOException e) {
        return switch (e) {
            case NoSuchFileException n -> "no such file";
            case java.nio.file.AccessDeniedException a -> "permission denied";
            default -> e.getClass().getSimpleName() + (e.getMessage() == null ? "" : " " + e.getMessage());
        };
    }

    /** Stops watching. */
    @Override
    public void close() {
        watch.close();
    }

    @Override
    public String toString() {
        return "token file " + Objects.toString(file);
    }
}
