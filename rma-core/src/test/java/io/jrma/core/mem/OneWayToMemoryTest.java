package io.jrma.core.mem;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@link Memory} is the one way to raw memory: no source file of any module outside this package names
 * {@code sun.misc.Unsafe} (so that another implementation can replace it without touching callers), and its
 * accesses do what their names say.
 */
class OneWayToMemoryTest {
    @Test
    void noOtherPackageTouchesUnsafe() throws IOException {
        Path root = Path.of("..").toAbsolutePath().normalize();
        List<String> offenders = new ArrayList<>();
        try (Stream<Path> all = Files.walk(root)) {
            all.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> p.toString().contains("/src/"))
                    .filter(p -> !p.toString().contains("/io/jrma/core/mem/"))
                    .forEach(p -> {
                        try {
                            String text = Files.readString(p);
                            if (text.contains("sun.misc.Unsafe") || text.contains("theUnsafe")) {
                                offenders.add(root.relativize(p).toString());
                            }
                        } catch (IOException e) {
                            offenders.add(p + ": " + e);
                        }
                    });
        }
        assertTrue(Files.isDirectory(root.resolve("sync-epochs/src/main/java")),
                "run from a module of the build: " + root);
        assertEquals(List.of(), offenders, "sources that reach Unsafe besides io.jrma.core.mem.Memory");
    }

    @Test
    void accessesReadWhatWasWritten() {
        long a = Memory.allocate(64);
        try {
            Memory.fill(a, 64, (byte) 0);
            Memory.putLongPlain(a, 42);
            Memory.putLongRelease(null, a + 8, 43);
            Memory.putLongVolatile(null, a + 16, 44);
            assertEquals(42, Memory.getLongVolatile(null, a));
            assertEquals(43, Memory.getLongPlain(null, a + 8));
            assertTrue(Memory.casLong(null, a + 16, 44, 45));
            assertEquals(45, Memory.getAndAddLong(null, a + 16, 5));
            assertEquals(50, Memory.getAndSetLong(null, a + 16, 7));
            Memory.copy(a, a + 32, 24);
            long[] back = new long[3];
            Memory.copy(null, a + 32, back, Memory.arrayBase(long[].class), 24);
            assertEquals(List.of(42L, 43L, 7L), List.of(back[0], back[1], back[2]));
        } finally {
            Memory.free(a);
        }
    }
}
