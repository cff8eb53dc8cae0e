package io.jrma.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** No line of any module's Java sources, main or test, passes 120 columns (STYLE.md); and the check sees one. */
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
}
