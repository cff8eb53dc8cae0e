package io.jrma.spi;

import io.jrma.Jrma;
import java.time.Duration;
import java.util.Map;

/**
 * Starts a job whose ranks are spread over several JVMs ({@code Jrma.job(n).jvms(j).run(main)}): the launcher
 * module's engine, found with {@code ServiceLoader}, so that rma-core does not link the launcher.
 */
public interface JobStarter {
    /**
     * Runs {@code main} as {@code nranks} ranks over {@code jvms} child JVMs of this host and waits for the job;
     * {@code main} travels serialized.
     *
     * @param timeout the job's time limit, or null for the default ({@code jrma.job.timeoutMs})
     * @throws Jrma.JobFailedException when a rank fails, the job times out or a JVM dies
     */
    void run(int nranks, int jvms, Map<String, String> params, Duration timeout, Jrma.RankMain main);
}
