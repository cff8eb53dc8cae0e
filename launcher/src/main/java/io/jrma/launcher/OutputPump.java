package io.jrma.launcher;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Copies a JVM's output (or its launch agent's) to the launcher's, a whole line at a time, so that lines of
 * different JVMs never mix, each after a prefix when one is given ({@code --tag-output} for a JVM of one rank).
 * One daemon thread per stream, ending with it.
 */
final class OutputPump {
    private OutputPump() {
    }

    /** Copies {@code from} to {@code to} line by line, each line after {@code prefix} (null: none). */
    static void lines(InputStream from, PrintStream to, String name, String prefix) {
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(from, StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    to.println(prefix == null ? line : prefix + line);
                }
            } catch (IOException ignored) {
                // the JVM is gone
            }
        }, name);
        t.setDaemon(true);
        t.start();
    }
}
