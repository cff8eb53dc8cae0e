package io.jrma.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * jrmarun given no hosts inside a Slurm allocation (an sbatch script, a salloc shell) runs on the allocation's nodes
 * with their slots, as mpirun does; outside one, or with JRMA_SLURM=0, it runs here.
 */
class AllocationHostsTest {
    @Test
    void anAllocationGivesItsNodesAndSlots() {
        Map<String, String> env = Map.of("SLURM_JOB_ID", "42", "SLURM_JOB_NODELIST", "node[01-02],gpu7",
                "SLURM_TASKS_PER_NODE", "2(x2),4");
        assertEquals(Optional.of("node01:2,node02:2,gpu7:4"), JrmaRun.allocationHosts(env));
        HostList hosts = HostList.ofHostArgs(List.of(JrmaRun.allocationHosts(env).orElseThrow()));
        assertEquals(8, hosts.totalSlots());
        assertEquals(List.of("node01", "node02", "gpu7"), hosts.hosts().stream().map(HostList.Host::name).toList());
    }

    @Test
    void outsideAnAllocationOrWhenTurnedOffNothing() {
        assertEquals(Optional.empty(), JrmaRun.allocationHosts(Map.of()));
        assertEquals(Optional.empty(), JrmaRun.allocationHosts(Map.of("SLURM_JOB_ID", "42")));
        assertEquals(Optional.empty(), JrmaRun.allocationHosts(Map.of("SLURM_JOB_ID", "42",
                "SLURM_JOB_NODELIST", "n1", "SLURM_TASKS_PER_NODE", "1", JrmaRun.SLURM_OFF, "0")));
    }

    @Test
    void anAllocationThatDoesNotParseIsAnError() {
        RmaException e = assertThrows(RmaException.class, () -> JrmaRun.allocationHosts(Map.of("SLURM_JOB_ID", "42",
                "SLURM_JOB_NODELIST", "n[3-1]", "SLURM_TASKS_PER_NODE", "1")));
        assertEquals(ErrorClass.ERR_ARG, e.errorClass());
    }
}
