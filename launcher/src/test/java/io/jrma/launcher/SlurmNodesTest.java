package io.jrma.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Slurm's compressed node lists and per-node counts, and the allocation read from them. The expected expansions
 * are those of Slurm 22.05's {@code scontrol show hostnames} for the same lists.
 */
class SlurmNodesTest {
    private static List<String> expand(String list) {
        return SlurmNodes.expand(list, "SLURM_JOB_NODELIST");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "n[1-3]                | n1 n2 n3",
        "node[01-04,07]        | node01 node02 node03 node04 node07",
        "a,b[2-3],c            | a b2 b3 c",
        "rack[1-2]-n[1-2]      | rack1-n1 rack1-n2 rack2-n1 rack2-n2",
        "n[1-2][3-4]           | n13 n14 n23 n24",
        "n[8-11]               | n8 n9 n10 n11",
        "n[008-011]            | n008 n009 n010 n011",
        "n[098-101]            | n098 n099 n100 n101",
        "n[01-3]               | n01 n02 n03",
        "n[0-1]                | n0 n1",
        "n[7]                  | n7",
        "n[1-3,2]              | n1 n2 n3 n2",
        "n1,n1                 | n1 n1",
        "n[1-2],m[3]           | n1 n2 m3",
        "jrmat[1-2]            | jrmat1 jrmat2",
        "single                | single",
        "n[1-2]-ib             | n1-ib n2-ib"})
    void nodeListsExpandAsSlurmDoes(String list, String names) {
        assertEquals(List.of(names.split(" ")), expand(list));
    }

    @ParameterizedTest(name = "''{0}''")
    @ValueSource(strings = {"n[1-2", "n1]", "x[2-1]", "n[a-b]", "n[]", "n[1-]", "a,,b", "n[[1]]", " ",
        "n[1-9999999999]"})
    void aBadNodeListIsAnArgumentErrorNamingTheVariable(String list) {
        RmaException e = assertThrows(RmaException.class, () -> expand(list));
        assertEquals(ErrorClass.ERR_ARG, e.errorClass());
        assertTrue(e.getMessage().contains("SLURM_JOB_NODELIST"), e.getMessage());
    }

    @Test
    void aHugeRangeIsRefusedRatherThanExpanded() {
        RmaException e = assertThrows(RmaException.class, () -> expand("n[1-99999999]"));
        assertTrue(e.getMessage().contains("more than " + SlurmNodes.MAX_NAMES), e.getMessage());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "2(x3),1     | 2 2 2 1",
        "4           | 4",
        "1,2,3       | 1 2 3",
        "2(x2),1(x2) | 2 2 1 1",
        "16(x1)      | 16"})
    void countsPerNodeExpand(String perNode, String counts) {
        List<Integer> want = Arrays.stream(counts.split(" ")).map(Integer::valueOf).toList();
        assertEquals(want, SlurmNodes.counts(perNode, "SLURM_TASKS_PER_NODE"));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"2(x)", "2x3", "(x3)", "2(x3", "2(y3)", "a", "1,,2", "2(x0)"})
    void aBadCountListIsAnArgumentError(String perNode) {
        RmaException e = assertThrows(RmaException.class, () -> SlurmNodes.counts(perNode, "SLURM_TASKS_PER_NODE"));
        assertEquals(ErrorClass.ERR_ARG, e.errorClass());
        assertTrue(e.getMessage().contains("SLURM_TASKS_PER_NODE"), e.getMessage());
    }

    @Test
    void anAllocationTakesItsSlotsFromTheTasksPerNode() {
        SlurmAllocation a = SlurmAllocation.from(Map.of("SLURM_JOB_ID", "17", "SLURM_JOB_NODELIST", "node[01-03],gpu7",
                "SLURM_TASKS_PER_NODE", "2(x3),1", "SLURM_JOB_CPUS_PER_NODE", "8(x4)"));
        assertEquals(List.of(new SlurmAllocation.Node("node01", 2), new SlurmAllocation.Node("node02", 2),
                new SlurmAllocation.Node("node03", 2), new SlurmAllocation.Node("gpu7", 1)), a.nodes());
        assertEquals(7, a.slots());
        assertEquals("node01:2,node02:2,node03:2,gpu7:1", a.hostSpec());
        assertEquals("17", a.jobId());
    }

    @Test
    void withoutTasksPerNodeTheSlotsAreTheCpusPerTask() {
        SlurmAllocation a = SlurmAllocation.from(Map.of("SLURM_JOB_ID", "3", "SLURM_NODELIST", "n[1-2]",
                "SLURM_JOB_CPUS_PER_NODE", "8,4", "SLURM_CPUS_PER_TASK", "2"));
        assertEquals("n1:4,n2:2", a.hostSpec());
        SlurmAllocation b = SlurmAllocation.from(Map.of("SLURM_JOB_ID", "3", "SLURM_JOB_NODELIST", "n[1-2]",
                "SLURM_JOB_CPUS_PER_NODE", "2(x2)"));
        assertEquals("n1:2,n2:2", b.hostSpec());
    }

    @Test
    void anAllocationWhoseListsDisagreeIsRefused() {
        RmaException e = assertThrows(RmaException.class, () -> SlurmAllocation.from(Map.of("SLURM_JOB_ID", "5",
                "SLURM_JOB_NODELIST", "n[1-3]", "SLURM_TASKS_PER_NODE", "2(x2)")));
        assertEquals(ErrorClass.ERR_ARG, e.errorClass());
        assertTrue(e.getMessage().contains("names 3 nodes") && e.getMessage().contains("counts 2"), e.getMessage());
    }

    @Test
    void outsideAnAllocationItSaysSo() {
        assertTrue(!SlurmAllocation.inAllocation(Map.of("SLURM_JOB_NODELIST", "n1")));
        RmaException e = assertThrows(RmaException.class, () -> SlurmAllocation.from(Map.of()));
        assertTrue(e.getMessage().contains("not inside a Slurm allocation"), e.getMessage());
        RmaException noSlots = assertThrows(RmaException.class, () -> SlurmAllocation.from(Map.of("SLURM_JOB_ID", "1",
                "SLURM_JOB_NODELIST", "n1")));
        assertTrue(noSlots.getMessage().contains("slots per node are unknown"), noSlots.getMessage());
        assertThrows(RmaException.class, () -> SlurmAllocation.from(Map.of("SLURM_JOB_ID", "1",
                "SLURM_JOB_NODELIST", "n1", "SLURM_JOB_CPUS_PER_NODE", "4", "SLURM_CPUS_PER_TASK", "0")));
    }
}
