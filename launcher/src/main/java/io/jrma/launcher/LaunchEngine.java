package io.jrma.launcher;

import io.jrma.Jrma;
import io.jrma.spi.JobStarter;
import java.time.Duration;
import java.util.Map;

/** {@code Jrma.job(n).jvms(j).run(main)}'s way to the launch engine ({@link JobLauncher#runSerializable}). */
public final class LaunchEngine implements JobStarter {
    @Override
    public void run(int nranks, int jvms, Map<String, String> params, Duration timeout, Jrma.RankMain main) {
        JobLauncher.runSerializable(nranks, jvms, params, timeout, main);
    }
}
