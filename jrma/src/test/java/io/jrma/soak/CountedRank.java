package io.jrma.soak;

import io.jrma.Comm;
import io.jrma.Jrma;
import io.jrma.WinCounters;
import io.jrma.WinCounters.Counter;
import io.jrma.core.runtime.CommCore;
import io.jrma.core.runtime.Job;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Runs a {@link SoakRank}, then writes what the library's window counters of this JVM say about how the job's
 * operations travelled ({@link #COUNTERS}: RDMA lane operations and bytes, UCP atomics, packets), one file per JVM
 * ({@code RESULT_FILE.jvmJ}, written by the JVM's lowest rank once every window of the job is freed), so that
 * {@link Soak} can show that a UCX layout's puts, gets and accumulates went through UCX.
 */
final class CountedRank implements Jrma.RankMain {
    private static final long serialVersionUID = 1L;

    /** The window counters written, in this order. */
    static final Counter[] COUNTERS = {Counter.RDMA_OPS, Counter.RDMA_BYTES, Counter.RDMA_ATOMICS,
        Counter.PACKETS_SENT};

    private final SoakRank soak;
    private final String resultFile;

    CountedRank(SoakRank soak, String resultFile) {
        this.soak = soak;
        this.resultFile = resultFile;
    }

    /** The file JVM {@code jvm} writes its counters to. */
    static Path fileOf(String resultFile, int jvm) {
        return Path.of(resultFile + ".jvm" + jvm);
    }

    @Override
    public void run(Comm world) throws Exception {
        soak.run(world); // ends with an allreduce: every rank has freed every window, whose counters stay summed
        Job job = ((CommCore) world).job();
        int lowest = 0;
        while (!job.isLocal(lowest)) {
            lowest++;
        }
        if (world.rank() == lowest) {
            WinCounters c = Jrma.jvmCounters(world);
            StringBuilder sb = new StringBuilder();
            for (Counter k : COUNTERS) {
                sb.append(k.name().toLowerCase()).append('=').append(c.get(k)).append('\n');
            }
            Files.writeString(fileOf(resultFile, job.jvmOf(lowest)), sb.toString());
        }
    }
}
