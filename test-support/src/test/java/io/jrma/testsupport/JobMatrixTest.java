package io.jrma.testsupport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteOrder;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The matrix of paths and rank counts a suite runs on (the jobs themselves need a window engine: its users). */
class JobMatrixTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    @Test
    void everyPathWithEverySizePathFirst() {
        JobMatrix m = new JobMatrix(new String[] {"auto", "packet"}, TIMEOUT);
        List<List<Object>> got = m.pathsAnd(2, 4).map(a -> Arrays.asList(a.get())).toList();
        assertEquals(List.of(List.of("auto", 2), List.of("auto", 4), List.of("packet", 2), List.of("packet", 4)), got);
        assertEquals(List.of("auto", "packet"), m.pathStream().toList());
        assertEquals(TIMEOUT, m.jobTimeout());
    }

    @Test
    void thePathsAreTheMatrixsOwn() {
        String[] paths = {"auto"};
        JobMatrix m = new JobMatrix(paths, TIMEOUT);
        paths[0] = "changed";
        assertArrayEquals(new String[] {"auto"}, m.paths());
        assertThrows(IllegalArgumentException.class, () -> new JobMatrix(new String[0], TIMEOUT));
    }

    @Test
    void directBuffersAreLittleEndian() {
        assertEquals(ByteOrder.LITTLE_ENDIAN, JobMatrix.direct(8).order());
        assertEquals(8, JobMatrix.direct(8).capacity());
    }
}
