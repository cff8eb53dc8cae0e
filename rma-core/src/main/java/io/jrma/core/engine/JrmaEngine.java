package io.jrma.core.engine;

import io.jrma.Comm;
import io.jrma.Jrma;
import io.jrma.Jrma.JobFailedException;
import io.jrma.Jrma.RankMain;
import io.jrma.RmaException;
import io.jrma.WinCounters;
import io.jrma.core.config.JobLayout;
import io.jrma.core.config.Param;
import io.jrma.core.config.Params;
import io.jrma.core.runtime.CommCore;
import io.jrma.core.runtime.Job;
import io.jrma.core.runtime.RankThreads;
import io.jrma.spi.Components;
import io.jrma.spi.TransportProvider;
import io.jrma.spi.Transports;
import io.jrma.spi.WorldBootstrap;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * What {@link Jrma} and {@code JrmaInfo} ask of the engine: thread jobs of the runtime, jobs over several JVMs by the
 * job starter, joining a job another launcher started by a world bootstrap, the buffer allocator, the transport
 * components. Registered in rma-core's META-INF/services as the {@link Jrma.Engine}; one instance per class loader.
 */
public final class JrmaEngine implements Jrma.Engine {
    /** The bootstrap this process joined a job with ({@link #singleton}), or null. */
    private volatile WorldBootstrap joinedBy;

    /** For {@code ServiceLoader}. */
    public JrmaEngine() {
    }

    @Override
    public Comm world() {
        return RankThreads.world();
    }

    @Override
    public synchronized Comm singleton(Map<String, String> params) {
        Comm c = RankThreads.world();
        if (c != null) {
            return c;
        }
        for (WorldBootstrap b : Components.worldBootstraps()) {
            if (b.detected()) {
                Comm w = b.join(params);
                joinedBy = b;
                return w;
            }
        }
        return RankThreads.singleton(params);
    }

    /** Whether a launcher started this process to be one rank of its job (a bootstrap detects its environment). */
    private static boolean launcherDetected() {
        for (WorldBootstrap b : Components.worldBootstraps()) {
            if (b.detected()) {
                return true;
            }
        }
        return false;
    }

    @Override
    public boolean startedAsRank() {
        return joinedBy == null && RankThreads.world() == null && launcherDetected();
    }

    @Override
    public boolean joinedExternalJob() {
        return joinedBy != null;
    }

    @Override
    public void leave(Comm world) {
        WorldBootstrap b = joinedBy;
        if (b != null) {
            b.finish(world);
        }
    }

    @Override
    public WinCounters jvmCounters(Comm comm) {
        return ((CommCore) comm).job().counters();
    }

    @Override
    public String parameter(Comm comm, Param p) {
        return ((CommCore) comm).job().param(p);
    }

    @Override
    public int progress(Comm comm) {
        Job job = ((CommCore) comm).job();
        if (!job.callersProgress()) {
            return 0;
        }
        job.agent().callerPolled(); // the progress thread keeps out of the way of callers that poll
        return job.agent().tryProgress();
    }

    @Override
    public ByteBuffer allocateMemory(int bytes) {
        return Components.bufferAllocator().allocate(bytes);
    }

    @Override
    public void run(int nranks, Map<String, String> params, Duration timeout, RankMain main) {
        int jvms = (int) Math.min(nranks, Params.JVMS.getLong(params));
        if (jvms > 1) {
            Components.jobStarter().run(nranks, jvms, params, timeout, main);
            return;
        }
        Job job = new Job(nranks, params);
        long timeoutMs = timeout != null ? timeout.toMillis() : Params.JOB_TIMEOUT_MS.getLong(job.params());
        int[] all = new int[nranks];
        Arrays.setAll(all, i -> i);
        RankThreads.Outcome out;
        try {
            out = RankThreads.run(job, all, main::run, timeoutMs, null);
        } finally {
            job.stop();
        }
        if (out.timedOut) {
            throw new JobFailedException(-1, "job timed out after " + timeoutMs + " ms"
                    + (out.stuckRanks.isEmpty() ? ""
                    : "; ranks still running outside the library: " + out.stuckRanks),
                    out.firstFailure);
        }
        if (out.firstFailure != null) {
            throw new JobFailedException(out.firstFailedRank, "rank " + out.firstFailedRank + " failed: "
                    + out.firstFailure, out.firstFailure);
        }
        if (job.isAborted()) {
            throw new JobFailedException(-1, job.abortReason().getMessage(), job.abortReason());
        }
    }

    @Override
    public List<Param> componentParams() {
        List<Param> all = new ArrayList<>();
        for (TransportProvider p : Components.transportProviders()) {
            all.addAll(p.params());
        }
        return all;
    }

    @Override
    public void printTransports(PrintStream out, JobLayout layout) {
        out.println("Transport components for " + layout.ranks() + " ranks over " + layout.jvms()
                + " JVM(s) of this host"
                + " (" + Params.TRANSPORTS.name() + "=" + Params.TRANSPORTS.get(layout.params()) + "):");
        List<Transports.Choice> choices;
        try {
            choices = Transports.evaluate(layout);
        } catch (RmaException e) {
            out.println("  " + e.getMessage());
            return;
        }
        if (choices.isEmpty()) {
            out.println("  none on the class path (window-shm, window-rdma): a job stays in one JVM");
        }
        for (Transports.Choice c : choices) {
            out.println("  " + (c.used() ? "+ " : "- ") + c.provider().name() + ": " + c.describe());
        }
        if (layout.jvms() > 1) {
            out.println("  (ranks of one JVM reach each other in memory; a peer in another JVM goes through the used"
                    + " transport of highest priority that reaches it)");
        }
    }
}
