package io.jrma.bench.micro;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.Jrma;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * IdleTarget runs every operation on both kinds of memory and prints one line per idle time whose counters account
 * for every sample (here two thread ranks of one JVM, so every sample is a direct operation; the numbers that
 * matter come from two JVMs under jrmarun).
 */
class IdleTargetSmokeTest {
    @Test
    @Timeout(120)
    void everyOperationOnBothMemoriesPrintsALinePerIdleTime() throws Exception {
        for (String op : new String[] {"fop", "cas", "get", "put"}) {
            for (String memory : new String[] {"private", "shared"}) {
                ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                IdleTarget b = IdleTarget.parse(new String[] {"--op", op, "--memory", memory, "--idle-ms", "0,0.05",
                    "--samples", "3", "--warmup", "10"}).out(new PrintStream(bytes, true, StandardCharsets.UTF_8));
                Jrma.runOrJoin(2, b::run);
                String text = bytes.toString(StandardCharsets.UTF_8);
                System.out.print(text);
                List<String> lines = text.lines().collect(Collectors.toList());
                assertEquals(4, lines.size(), text);
                assertTrue(lines.get(0).startsWith("# IdleTarget: " + op + " + flush on " + memory + " memory"), text);
                for (String l : lines.subList(2, 4)) {
                    String[] f = l.trim().split("\\s+");
                    assertEquals(7, f.length, l);
                    assertTrue(Double.parseDouble(f[1]) > 0 && Double.parseDouble(f[2]) >= Double.parseDouble(f[1]), l);
                    assertEquals(3, Long.parseLong(f[6]), "thread ranks of one JVM: every sample direct: " + l);
                }
                assertEquals(2, b.medians.size());
            }
        }
    }

    @Test
    void badOptionsAreRefusedWithTheirName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> IdleTarget.parse(new String[] {"--op", "swap"}));
        assertTrue(e.getMessage().contains("--op fop|cas|get|put"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> IdleTarget.parse(new String[] {"--samples", "0"}));
        assertTrue(e.getMessage().contains("samples >= 1"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> IdleTarget.parse(new String[] {"--idle-ms"}));
        assertTrue(e.getMessage().contains("needs a value"), e.getMessage());
    }
}
