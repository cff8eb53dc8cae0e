package io.jrma.launcher;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

/**
 * The nodes and slots of the Slurm allocation this process runs in ({@code sbatch}, {@code salloc}), read from the
 * environment Slurm gives a job's batch script, as Open MPI's {@code mpirun} reads it: the nodes from
 * {@code SLURM_JOB_NODELIST} (or the older {@code SLURM_NODELIST}), and on each node as many slots as
 * {@code SLURM_TASKS_PER_NODE} says (set when the job asked for a number of tasks), else as many as it has CPUs
 * ({@code SLURM_JOB_CPUS_PER_NODE}) divided by {@code SLURM_CPUS_PER_TASK}. For jrmarun inside an allocation.
 *
 * <p>Immutable; any thread.
 */
final class SlurmAllocation {
    static final String JOB_ID = "SLURM_JOB_ID";
    static final String JOB_NODELIST = "SLURM_JOB_NODELIST";
    static final String OLD_NODELIST = "SLURM_NODELIST";
    static final String TASKS_PER_NODE = "SLURM_TASKS_PER_NODE";
    static final String JOB_CPUS_PER_NODE = "SLURM_JOB_CPUS_PER_NODE";
    static final String CPUS_PER_TASK = "SLURM_CPUS_PER_TASK";

    /** One node of the allocation and how many ranks it takes. */
    record Node(String name, int slots) {
    }

    private final String jobId;
    private final List<Node> nodes;

    private SlurmAllocation(String jobId, List<Node> nodes) {
        this.jobId = jobId;
        this.nodes = List.copyOf(nodes);
    }

    /** Whether {@code env} is that of a process inside a Slurm allocation (a job id and its node list). */
    static boolean inAllocation(Map<String, String> env) {
        return env.get(JOB_ID) != null && (env.get(JOB_NODELIST) != null || env.get(OLD_NODELIST) != null);
    }

    /** The allocation of this process's environment. */
    static SlurmAllocation fromEnvironment() {
        return from(System.getenv());
    }

    /**
     * The allocation {@code env} describes.
     *
     * @throws RmaException ERR_ARG when {@code env} is not inside an allocation or its variables do not parse
     */
    static SlurmAllocation from(Map<String, String> env) {
        if (!inAllocation(env)) {
            throw new RmaException(ErrorClass.ERR_ARG, "not inside a Slurm allocation: " + JOB_ID + " and "
                    + JOB_NODELIST + " are not both set (run inside sbatch or salloc)");
        }
        String listVar = env.get(JOB_NODELIST) != null ? JOB_NODELIST : OLD_NODELIST;
        List<String> names = SlurmNodes.expand(env.get(listVar), listVar);
        List<Integer> slots;
        String slotsVar;
        if (env.get(TASKS_PER_NODE) != null) {
            slotsVar = TASKS_PER_NODE;
            slots = SlurmNodes.counts(env.get(TASKS_PER_NODE), TASKS_PER_NODE);
        } else if (env.get(JOB_CPUS_PER_NODE) != null) {
            slotsVar = JOB_CPUS_PER_NODE;
            int perTask = cpusPerTask(env);
            slots = new ArrayList<>();
            for (int cpus : SlurmNodes.counts(env.get(JOB_CPUS_PER_NODE), JOB_CPUS_PER_NODE)) {
                slots.add(cpus / perTask);
            }
        } else {
            throw new RmaException(ErrorClass.ERR_ARG, "inside Slurm job " + env.get(JOB_ID) + " neither "
                    + TASKS_PER_NODE + " nor " + JOB_CPUS_PER_NODE + " is set: the slots per node are unknown");
        }
        if (slots.size() != names.size()) {
            throw new RmaException(ErrorClass.ERR_ARG, listVar + "=" + env.get(listVar) + " names " + names.size()
                    + " nodes but " + slotsVar + "=" + env.get(slotsVar) + " counts " + slots.size());
        }
        List<Node> nodes = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            nodes.add(new Node(names.get(i), slots.get(i)));
        }
        return new SlurmAllocation(env.get(JOB_ID), nodes);
    }

    private static int cpusPerTask(Map<String, String> env) {
        String v = env.get(CPUS_PER_TASK);
        if (v == null) {
            return 1;
        }
        try {
            int n = Integer.parseInt(v.trim());
            if (n >= 1) {
                return n;
            }
        } catch (NumberFormatException ignored) {
            // reported below
        }
        throw new RmaException(ErrorClass.ERR_ARG, CPUS_PER_TASK + "=" + v + " is not a positive number");
    }

    /** The Slurm job id of the allocation. */
    String jobId() {
        return jobId;
    }

    /** The nodes in Slurm's order, each with its slots. */
    List<Node> nodes() {
        return nodes;
    }

    /** The slots of all nodes. */
    int slots() {
        return nodes.stream().mapToInt(Node::slots).sum();
    }

    /** The allocation in jrmarun's {@code --host} form: {@code n1:2,n2:2}. */
    String hostSpec() {
        StringJoiner j = new StringJoiner(",");
        for (Node n : nodes) {
            j.add(n.name() + ":" + n.slots());
        }
        return j.toString();
    }

    @Override
    public String toString() {
        return "Slurm job " + jobId + ": " + hostSpec();
    }
}
