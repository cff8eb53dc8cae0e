package io.jrma.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.opentest4j.AssertionFailedError;

/** A child process's output, exit code, bounded wait and the kill of everything it started. */
class ChildProcessTest {
    /** Long enough that only a kill ends these processes within the tests' timeouts. */
    private static final String FOREVER_S = "600";
    private static final long WAIT_S = 20;

    @Test
    @Timeout(60)
    void exitGivesTheCodeAndEveryLineOfBothStreams() throws Exception {
        ChildProcess p = ChildProcess.start(List.of("sh", "-c", "echo one; echo two >&2; exit 3"));
        assertEquals(3, p.exit(WAIT_S), p.output());
        assertEquals(List.of("one", "two"), p.lines());
        assertTrue(p.printed("tw"));
        assertEquals(1, p.count("one"));
    }

    @Test
    @Timeout(60)
    void killEndsTheProcessAndWhatItStarted() throws Exception {
        ChildProcess p = ChildProcess.start(List.of("sh", "-c", "sleep " + FOREVER_S + " & echo started; wait"));
        p.awaitLine("started"::equals, WAIT_S * 1000);
        p.noteDescendants();
        assertFalse(p.seen().isEmpty(), "the shell's sleep was not seen");
        p.kill();
        p.assertNoProcessLeft();
        assertTrue(p.process().waitFor(WAIT_S, TimeUnit.SECONDS), "the shell still runs");
    }

    @Test
    @Timeout(60)
    void exitFailsWhenTheProcessDoesNotEndAndStillKillsIt() throws Exception {
        ChildProcess p = ChildProcess.start(List.of("sh", "-c", "echo waiting; sleep " + FOREVER_S));
        p.awaitLine("waiting"::equals, WAIT_S * 1000);
        AssertionFailedError e = assertThrows(AssertionFailedError.class, () -> p.exit(1));
        assertTrue(e.getMessage().contains("waiting"), "the output is in the message: " + e.getMessage());
        p.assertNoProcessLeft();
        assertTrue(p.process().waitFor(WAIT_S, TimeUnit.SECONDS), "the shell still runs");
    }

    @Test
    @Timeout(60)
    void awaitLineFailsWithTheOutputWhenNoLineMatches() throws Exception {
        ChildProcess p = ChildProcess.start(List.of("sh", "-c", "echo something else; sleep " + FOREVER_S));
        try {
            AssertionError e = assertThrows(AssertionError.class, () -> p.awaitLine("never"::equals, 500));
            assertTrue(e.getMessage().contains("something else"), e.getMessage());
        } finally {
            p.kill();
        }
    }

    @Test
    void jrmarunCommandNamesTheLauncherAndTheArguments() {
        List<String> cmd = Command.jrmarun(List.of("-Dx=1"), "-n", "2", "Main");
        assertEquals(Command.java(), cmd.get(0));
        assertEquals(List.of("-Dx=1", "-cp", Command.classPath(), Command.JRMARUN_MAIN, "-n", "2", "Main"),
                cmd.subList(1, cmd.size()));
        assertEquals(List.of("a", "b", "c"), List.of(Command.concat(new String[] {"a"}, "b", "c")));
    }
}
