package io.jrma.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * No line of any module's Java sources, main or test, passes 120 columns (STYLE.md); no code names a class by its
 * fully qualified name (import it); and the checks see each.
 */
class SourceLinesTest {
    /** The project root, seen from this module's directory (where surefire runs the tests). */
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @Test
    void noSourceLinePassesTheLimit() throws Exception {
        List<Path> files = SourceLines.javaSources(ROOT);
        assertFalse(files.isEmpty(), "no sources found under " + ROOT);
        List<String> tooLong = SourceLines.tooLong(ROOT, files);
        assertEquals(List.of(), tooLong, tooLong.size() + " lines pass " + SourceLines.MAX_COLUMNS
                + " columns (wrap them)");
    }

    @Test
    void aLineOneColumnTooWideIsReported(@TempDir Path root) throws Exception {
        Path src = Files.createDirectories(root.resolve("m").resolve("src").resolve("main"));
        String fits = "x".repeat(SourceLines.MAX_COLUMNS);
        Files.writeString(src.resolve("A.java"), fits + "\n" + fits + "y\n", StandardCharsets.UTF_8);
        Files.writeString(src.resolve("B.txt"), fits + "yy\n", StandardCharsets.UTF_8);
        List<Path> files = SourceLines.javaSources(root);
        assertEquals(1, files.size(), files.toString());
        assertEquals(List.of(Path.of("m", "src", "main", "A.java") + ":2: " + (SourceLines.MAX_COLUMNS + 1)),
                SourceLines.tooLong(root, files));
    }

    @Test
    void noCodeNamesAClassByItsQualifiedName() throws Exception {
        List<Path> files = SourceLines.javaSources(ROOT);
        assertFalse(files.isEmpty(), "no sources found under " + ROOT);
        List<String> named = SourceLines.inlineQualifiedNames(ROOT, files).stream()
                .filter(n -> !clashesWithItsOwnPackage(n)).toList();
        assertEquals(List.of(), named, named.size() + " fully qualified names in code (import the classes; where two"
                + " of one simple name meet, rename or move one)");
    }

    /**
     * Whether a reported name ({@code path:line: a.b.Name}) names a class whose simple name a class of the file's own
     * package has: Java has no import aliases, so the {@code mpi} package (Open MPI's names: Comm, Datatype, Win, Op,
     * Info, Group, Request, Status) must name the engine's classes of the same names in full.
     */
    private static boolean clashesWithItsOwnPackage(String reported) {
        String[] parts = reported.split(": ");
        String path = parts[0].substring(0, parts[0].lastIndexOf(':'));
        String fqn = parts[parts.length - 1];
        String simple = fqn.substring(fqn.lastIndexOf('.') + 1);
        return Files.exists(ROOT.resolve(path).resolveSibling(simple + ".java"));
    }

    @Test
    void aQualifiedNameInCodeIsReportedButNotInCommentsLiteralsOrImports(@TempDir Path root) throws Exception {
        Path src = Files.createDirectories(root.resolve("m").resolve("src").resolve("main"));
        Files.writeString(src.resolve("A.java"), String.join("\n",
                "package io.x;",
                "import java.util.List;",
                "/** See {@link java.util.Map} and java.util.Set. */",
                "class A {",
                "    String s = \"java.util.Map is a string\"; // java.util.Map in a comment",
                "    char c = '\\''; /* java.util.Map */ String t = \"\\\"java.util.Map\";",
                "    String u = \"\"\"",
                "        java.util.Map in a text block",
                "        \"\"\";",
                "    java.util.Map<String, String> m; Object o = mpi.MPI.COMM_WORLD; int x = this.io.y.Z;",
                "}", ""), StandardCharsets.UTF_8);
        List<Path> files = SourceLines.javaSources(root);
        assertEquals(List.of(Path.of("m", "src", "main", "A.java") + ":10: java.util.Map"),
                SourceLines.inlineQualifiedNames(root, files));
    }
}
