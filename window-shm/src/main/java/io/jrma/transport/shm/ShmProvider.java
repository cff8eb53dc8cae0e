package io.jrma.transport.shm;

import io.jrma.core.config.JobLayout;
import io.jrma.core.config.Param;
import io.jrma.core.runtime.Job;
import io.jrma.shm.ShmFiles;
import io.jrma.shm.ShmSegment;
import io.jrma.spi.TransportProvider;
import io.jrma.spi.TransportQuery;
import io.jrma.spi.transport.Transport;
import java.util.List;
import java.util.Map;

/**
 * The {@code shm} transport component: rings in shared memory between the JVMs of a job that share a host (and its
 * {@code /dev/shm}). It also owns the housekeeping of every file jrma keeps in that directory (rings, window
 * segments, the allocator's arena): what a killed JVM left there is removed through {@link #reclaim}.
 */
public final class ShmProvider implements TransportProvider {
    /** The component's name. */
    public static final String NAME = "shm";
    /** Above TCP's: a peer on this host is reached through its ring. */
    public static final int PRIORITY = 50;

    @Override
    public String name() {
        return NAME;
    }

    /**
     * Decided from the layout alone, so that every JVM of a job takes part in the rings' collective set-up: whether
     * a JVM shares its host with others is learnt there, and so is a directory that cannot hold rings (an error
     * naming the parameters to change).
     */
    @Override
    public TransportQuery query(JobLayout layout) {
        if (layout.jvms() < 2) {
            return TransportQuery.declined("one JVM: its ranks reach each other in memory");
        }
        return TransportQuery.priority(PRIORITY, "JVMs of one host that share " + ShmParams.DIR.get(layout.params())
                + ": packets through rings in shared memory, one per ordered pair of JVMs");
    }

    @Override
    public Opening open(Job job, String jobId, String secret) {
        return new Opening() {
            @Override
            public String card() {
                return ""; // the rings are agreed on over the control plane, whose first transport is TCP
            }

            @Override
            public Transport connect(String[] cards) {
                return ShmRingTransport.attach(job, job.blockingTransport(), job::wakeJvm, jobId);
            }
        };
    }

    @Override
    public List<Param> params() {
        return ShmParams.ALL;
    }

    @Override
    public List<String> reclaim(Map<String, String> params, long pid) {
        return ShmFiles.removeFilesOf(ShmSegment.directory(ShmParams.DIR.get(params)), pid);
    }

    @Override
    public List<String> reclaimDead(Map<String, String> params) {
        return ShmFiles.reclaimDead(ShmSegment.directory(ShmParams.DIR.get(params)));
    }
}
