package io.ringbase.cli;

/** Entry point of the {@code ringbase} command. */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        System.out.println("ringbase: not yet implemented");
    }
}
