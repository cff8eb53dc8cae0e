package io.jrma.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The source style rules a test can check mechanically: no line of a Java source passes {@value #MAX_COLUMNS}
 * columns, and no code names a class by its fully qualified name instead of importing it. Finds the sources of every
 * module under a project root ({@code <module>/src/**}/*.java) and reports the offending lines as
 * {@code path:line: ...}. Stateless.
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

    /**
     * A qualified class name in code: a package of the usual roots, at least one more lower-case segment, then a
     * capitalized name ({@code java.util.List}); not a part of a longer chain ({@code a.io.x.Y}). {@code mpi.MPI}
     * (a package of one segment) is not seen: too like a field access to tell apart by text.
     */
    private static final Pattern QUALIFIED = Pattern.compile(
            "(?<![\\w.])(?:java|javax|io|net|mpi|org|com|jdk|sun)(?:\\.[a-z0-9_]+)+\\.[A-Z]\\w*");

    /**
     * The lines of {@code files} whose code names a class by its fully qualified name, as {@code path:line: name}
     * with the path relative to {@code root}. Comments (javadoc too), string, character and text-block literals,
     * and {@code package} and {@code import} declarations are not code here.
     */
    public static List<String> inlineQualifiedNames(Path root, List<Path> files) {
        List<String> out = new ArrayList<>();
        for (Path f : files) {
            String text;
            try {
                text = Files.readString(f, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            String[] lines = codeOnly(text).split("\n", -1);
            for (int i = 0; i < lines.length; i++) {
                String line = lines[i].strip();
                if (line.startsWith("import ") || line.startsWith("package ")) {
                    continue;
                }
                Matcher m = QUALIFIED.matcher(lines[i]);
                while (m.find()) {
                    out.add(root.relativize(f) + ":" + (i + 1) + ": " + m.group());
                }
            }
        }
        return out;
    }

    /**
     * {@code source} with every comment and literal blanked (each of its characters a space, its line breaks kept),
     * so that what is left is code, line for line.
     */
    static String codeOnly(String source) {
        StringBuilder b = new StringBuilder(source.length());
        int n = source.length();
        int i = 0;
        while (i < n) {
            char c = source.charAt(i);
            if (source.startsWith("//", i)) {
                int end = source.indexOf('\n', i);
                i = blank(source, i, end < 0 ? n : end, b);
            } else if (source.startsWith("/*", i)) {
                int end = source.indexOf("*/", i + 2);
                i = blank(source, i, end < 0 ? n : end + 2, b);
            } else if (source.startsWith("\"\"\"", i)) {
                i = blank(source, i, literalEnd(source, i + 3, "\"\"\""), b);
            } else if (c == '"' || c == '\'') {
                i = blank(source, i, literalEnd(source, i + 1, String.valueOf(c)), b);
            } else {
                b.append(c);
                i++;
            }
        }
        return b.toString();
    }

    /** Where the literal whose text starts at {@code from} ends (after its closing {@code quote}), escapes skipped. */
    private static int literalEnd(String s, int from, String quote) {
        int i = from;
        while (i < s.length()) {
            if (s.charAt(i) == '\\') {
                i += 2;
            } else if (s.startsWith(quote, i)) {
                return i + quote.length();
            } else if (s.charAt(i) == '\n' && quote.length() == 1) {
                return i; // an unclosed literal ends with its line (the source would not compile)
            } else {
                i++;
            }
        }
        return s.length();
    }

    /** Appends {@code s[from, to)} blanked to {@code b}; returns {@code to}. */
    private static int blank(String s, int from, int to, StringBuilder b) {
        for (int i = from; i < to; i++) {
            b.append(s.charAt(i) == '\n' ? '\n' : ' ');
        }
        return to;
    }
}
