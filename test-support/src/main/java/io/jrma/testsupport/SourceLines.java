package io.jrma.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The source style rules a test can check mechanically: no line of a Java source passes {@value #MAX_COLUMNS}
 * columns. Finds the sources of every module under a project root ({@code <module>/src/**}/*.java) and reports the
 * offending lines as {@code path:line: length}. Stateless.
 */
public final class SourceLines {
    /** The widest a source line may be. */
    public static final int MAX_COLUMNS = 120;

    private SourceLines() {
    }

    /** Every Java source under {@code root}'s modules ({@code <module>/src/...}), sorted by path. */
    public static List<Path> javaSources(Path root) throws IOException {
        List<Path> out = new ArrayList<>();
        try (Stream<Path> modules = Files.list(root)) {
            for (Path m : modules.filter(p -> Files.isDirectory(p.resolve("src"))).sorted().toList()) {
                try (Stream<Path> files = Files.walk(m.resolve("src"))) {
                    files.filter(p -> p.toString().endsWith(".java")).sorted().forEach(out::add);
                }
            }
        }
        return out;
    }

    /**
     * The lines of {@code files} wider than {@value #MAX_COLUMNS} columns (a tab counts as one), as
     * {@code path:line: length} with the path relative to {@code root}.
     */
    public static List<String> tooLong(Path root, List<Path> files) {
        List<String> out = new ArrayList<>();
        for (Path f : files) {
            List<String> lines;
            try {
                lines = Files.readAllLines(f, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            for (int i = 0; i < lines.size(); i++) {
                int columns = lines.get(i).codePointCount(0, lines.get(i).length());
                if (columns > MAX_COLUMNS) {
                    out.add(root.relativize(f) + ":" + (i + 1) + ": " + columns);
                }
            }
        }
        return out;
    }
}
