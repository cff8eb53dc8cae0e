package io.jrma.bench.osu;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jrma.testsupport.ChildProcess;
import io.jrma.testsupport.Command;

/** Runs a benchmark under jrmarun as a user starts it (test-support's {@link ChildProcess}), for the smoke tests. */
final class Jrmarun {
    /** The job timeout jrmarun is given. */
    private static final String JOB_TIMEOUT_S = "60";
    /** How long the test waits for jrmarun to end (the job timeout and the launcher's teardown). */
    private static final long WAIT_S = 90;

    private Jrmarun() {
    }

    /** jrmarun with {@code args} (a 60 s job timeout); its output, after asserting that it ended with exit code 0. */
    static String run(String... args) throws Exception {
        ChildProcess p = ChildProcess.jrmarun(Command.concat(new String[] {"--timeout", JOB_TIMEOUT_S}, args));
        assertEquals(0, p.exit(WAIT_S), p.output());
        return p.output();
    }

    /** {@code a} then {@code b}. */
    static String[] cat(String[] a, String[] b) {
        return Command.concat(a, b);
    }
}
