package io.ringbase.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Reads the cluster secret file of {@code serve --cluster-secret-file} and {@code admin --secret-file}. */
final class SecretFile {

    /** Fewest characters a secret may have. */
    static final int MIN_CHARACTERS = 16;

    private SecretFile() {}

    /**
     * The secret in {@code file}: its text without surrounding white space, as UTF-8 bytes.
     *
     * @param flag the option that named the file, for messages
     * @throws IllegalArgumentException with a one-line message if the file cannot be read or the secret
     *                                  is shorter than {@value #MIN_CHARACTERS} characters
     */
    static byte[] read(Path file, String flag) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + flag + " " + file + ": " + describe(e));
        }
        String text = new String(bytes, StandardCharsets.UTF_8).strip();
        if (text.length() < MIN_CHARACTERS) {
            throw new IllegalArgumentException(flag + " " + file + " holds " + text.length()
                    + " characters; use at least " + MIN_CHARACTERS + " (e.g. `head -c 32 /dev/urandom | base64`)");
        }
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String describe(IOException e) {
        return switch (e) {
            case java.nio.file.NoSuchFileException n -> "no such file";
            case java.nio.file.AccessDeniedException a -> "permission denied";
            default -> e.getClass().getSimpleName() + (e.getMessage() == null ? "" : " " + e.getMessage());
        };
    }
}
