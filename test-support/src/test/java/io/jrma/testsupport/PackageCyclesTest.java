package io.jrma.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * No cycle between the packages of the modules (issue 29: dependencies point down, "no cycles between packages
 * either"), rma-core's included: the engine packages ({@code io.jrma.core.*}, {@code io.jrma.spi}) use the public
 * API package {@code io.jrma} (its {@code RmaException}, {@code Comm}, ...), and the API uses only the packages below
 * it that do not reach back (datatypes, ops, memory, OS bindings, parameters, and how those raise an
 * {@code RmaException}); it finds the engine built on it with {@code ServiceLoader} (docs/architecture.md).
 */
class PackageCyclesTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final List<String> OURS = List.of("io.jrma", "mpi");

    @Test
    void noPackageCycle() throws Exception {
        List<Path> main = new ArrayList<>();
        for (Path p : SourceLines.javaSources(ROOT)) {
            if (p.toString().contains("/src/main/java/")) {
                main.add(p);
            }
        }
        Map<String, Set<String>> g = PackageGraph.of(main, OURS);
        assertTrue(g.size() > 20, "the project's packages were found: " + g.keySet());
        assertEquals(List.of(), PackageGraph.cycles(g), "package cycles (each a strongly connected component)");
    }

    @Test
    void aCycleIsFoundAndALayeringIsNot(@TempDir Path root) throws Exception {
        Path src = Files.createDirectories(root.resolve("m/src/main/java"));
        List<Path> files = new ArrayList<>();
        files.add(write(src, "A.java", "package io.jrma.a;\nimport io.jrma.b.B;\nimport static io.jrma.c.C.f;\n"));
        files.add(write(src, "B.java", "package io.jrma.b;\nimport io.jrma.a.*;\nimport java.util.List;\n"));
        files.add(write(src, "C.java", "package io.jrma.c;\nimport org.other.X;\n"));
        Map<String, Set<String>> g = PackageGraph.of(files, OURS);
        assertEquals(Set.of("io.jrma.b", "io.jrma.c"), g.get("io.jrma.a"));
        assertEquals(List.of(Set.of("io.jrma.a", "io.jrma.b")), PackageGraph.cycles(g));
        g.get("io.jrma.b").clear();
        assertTrue(PackageGraph.cycles(g).isEmpty(), "a layering has no cycle");
        assertEquals("io.jrma.core.mem", PackageGraph.packageOf("io.jrma.core.mem.Memory.NONE"));
    }

    private static Path write(Path dir, String name, String text) throws Exception {
        Path f = dir.resolve(name);
        Files.writeString(f, text, StandardCharsets.UTF_8);
        return f;
    }
}
