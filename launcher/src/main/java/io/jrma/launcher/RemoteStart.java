package io.jrma.launcher;

import io.jrma.core.os.HostId;
import io.jrma.core.os.LocalAddresses;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * How jrmarun reaches other hosts, as Open MPI's rsh launcher does: a JVM there is started by a launch agent
 * ({@code ssh} by default; {@code --launch-agent CMD} as Open MPI's {@code plm_rsh_agent}) given the host and one
 * shell command line ({@code cd DIR && exec sh -c SCRIPT jrma env JRMA_...=... JAVA ... JvmHost}); the same java,
 * class path and working directory as here (a shared file system, or {@code --prefix}). The job secret is not in that
 * command: it travels on the agent's stdin, which ssh forwards, and the remote shell puts it in a private file.
 * And which address the launcher listens on so that
 * JVMs of every host reach it: never loopback, by default the one the kernel routes to the hosts from.
 *
 * <p>Stateless; any thread.
 */
final class RemoteStart {
    /** The launch agent when none is given. */
    static final String DEFAULT_AGENT = "ssh";
    /**
     * The launch agent inside a Slurm allocation (as Open MPI's {@code plm/slurm}): {@code srun} starts a step of one
     * task on the node, so the nodes need no ssh between them.
     */
    static final String SLURM_AGENT = "srun";
    /**
     * What {@code srun} is given before the node, for one JVM: one task on one node, sharing the allocation's CPUs with
     * the other steps ({@code --overlap}: every host's step runs at once), unbound (jrma binds its ranks itself), no
     * PMI (the JVM joins jrmarun's job, not the step), and without srun's own remarks.
     */
    static final List<String> SRUN_OPTIONS = List.of("--nodes=1", "--ntasks=1", "--overlap", "--cpu-bind=none",
            "--mpi=none", "--quiet");
    /** The remote shell's exit code when jrma is not in the {@code --prefix} directory there (as "not found"). */
    static final int NOT_INSTALLED = 127;
    /** window-rdma's TCP parameter (NetParams.INTERFACE): where each JVM's IO agent listens. */
    static final String TCP_INTERFACE = "jrma.tcp.interface";
    /** Its environment form, as Param reads it. */
    static final String TCP_INTERFACE_ENV = "JRMA_TCP_INTERFACE";

    private RemoteStart() {
    }

    /** Whether {@code host} ({@code user@node} too) is this host: started here directly, without the agent. */
    static boolean isLocal(String host) {
        String h = nodeOf(host);
        if (h.equals("localhost") || h.equals(HostId.hostName()) || h.equals(shortName(HostId.hostName()))) {
            return true;
        }
        try {
            for (InetAddress a : InetAddress.getAllByName(h)) {
                if (LocalAddresses.isLocal(a)) {
                    return true;
                }
            }
        } catch (UnknownHostException | SecurityException e) {
            // not a name this host resolves: the agent may know it (an ssh alias); not this host in any case
        }
        return false;
    }

    /** The node part of {@code user@node}. */
    static String nodeOf(String host) {
        int at = host.lastIndexOf('@');
        return at >= 0 ? host.substring(at + 1) : host;
    }

    private static String shortName(String name) {
        int dot = name.indexOf('.');
        return dot > 0 ? name.substring(0, dot) : name;
    }

    /**
     * The remote shell's script that takes the secret: the first line of its stdin (read byte by byte, so that what
     * follows stays the JVM's) into a new file only the user can read, named by {@code JRMA_SECRET_FILE}; then runs
     * its arguments. The JVM removes the file once it read it ({@link SecretFile#take}).
     */
    static final String SECRET_SCRIPT = "umask 077 && f=$(mktemp) && IFS= read -r s && printf '%s\\n' \"$s\" > \"$f\""
            + " && export " + LauncherLink.ENV_SECRET_FILE + "=\"$f\" && exec \"$@\"";

    /**
     * The agent's command line that runs {@code command} (java and its arguments) on {@code host} in {@code dir} with
     * {@code env} set: {@code AGENT... HOST 'cd DIR && exec sh -c SECRET_SCRIPT jrma env K=V... JAVA ARGS...'}, every
     * word quoted for the remote shell; the script ({@link #SECRET_SCRIPT}) takes the secret from stdin.
     */
    static List<String> command(String agent, String host, String dir, Map<String, String> env, List<String> command) {
        return command(agent, host, dir, null, env, command, true);
    }

    /**
     * As {@link #command(String, String, String, Map, List)}; without {@code secretOnStdin} (a command that joins no
     * job, such as {@code jrmarun --cleanup}) the command runs directly: {@code 'cd DIR && exec env K=V... ARGS...'}.
     */
    static List<String> command(String agent, String host, String dir, Map<String, String> env, List<String> command,
            boolean secretOnStdin) {
        return command(agent, host, dir, null, env, command, secretOnStdin);
    }

    /**
     * As {@link #command(String, String, String, Map, List, boolean)}, first checking there that jrma is installed in
     * {@code prefix} ({@code --prefix}; null: no check): without {@code prefix/lib} the remote shell prints one line
     * naming the host and the directory and exits with {@value #NOT_INSTALLED}, as a shell does for a missing command.
     */
    static List<String> command(String agent, String host, String dir, String prefix, Map<String, String> env,
            List<String> command, boolean secretOnStdin) {
        List<String> cmd = new ArrayList<>();
        for (String w : agent.trim().split("\\s+")) {
            if (!w.isEmpty()) {
                cmd.add(w);
            }
        }
        if (cmd.isEmpty()) {
            throw new IllegalArgumentException("--launch-agent is empty");
        }
        boolean srun = isSrun(agent);
        if (srun) {
            // srun runs a program, not a remote shell's command line: the line goes to sh -c on the node
            cmd.addAll(SRUN_OPTIONS);
            cmd.add("--nodelist=" + nodeOf(host));
            cmd.add("sh");
            cmd.add("-c");
        } else {
            cmd.add(host);
        }
        StringBuilder remote = new StringBuilder("cd ").append(quote(dir)).append(" && ");
        if (prefix != null) {
            String lib = prefix.endsWith("/") ? prefix + "lib" : prefix + "/lib";
            remote.append("{ [ -d ").append(quote(lib)).append(" ] || { echo ").append(quote("jrmarun: jrma is not"
                    + " installed on host " + nodeOf(host) + ": " + lib + " is not there (--prefix " + prefix + ")"))
                    .append(" >&2; exit ").append(NOT_INSTALLED).append("; }; } && ");
        }
        remote.append("exec ");
        if (secretOnStdin) {
            remote.append("sh -c ").append(quote(SECRET_SCRIPT)).append(" jrma ");
        }
        remote.append("env");
        env.forEach((k, v) -> remote.append(' ').append(quote(k + "=" + v)));
        for (String w : command) {
            remote.append(' ').append(quote(w));
        }
        cmd.add(remote.toString());
        return cmd;
    }

    /** Whether the launch agent is Slurm's {@code srun} (its first word names it, with or without a directory). */
    static boolean isSrun(String agent) {
        String first = agent.trim().split("\\s+")[0];
        return first.equals(SLURM_AGENT) || first.endsWith("/" + SLURM_AGENT);
    }

    /** {@code s} as one word of a POSIX shell command line. */
    static String quote(String s) {
        if (!s.isEmpty() && s.chars().allMatch(c -> Character.isLetterOrDigit(c) || "-_./=:,+@%".indexOf(c) >= 0)) {
            return s;
        }
        return "'" + s.replace("'", "'\\''") + "'";
    }

    /**
     * Where the launcher of a job across hosts listens: {@code bind} (an address, or the wildcard when the hosts are
     * reached from different local addresses) and the address each host's JVMs are told ({@code advertised}, by host
     * name; the local JVMs take {@code local}).
     */
    record Listen(InetAddress bind, Map<String, InetAddress> advertised, InetAddress local) {
        InetAddress forHost(String host) {
            return advertised.getOrDefault(host, local);
        }
    }

    /**
     * Chooses the rendezvous address for a job whose JVMs run on {@code remoteHosts} (and maybe here):
     * {@code jrma.tcp.interface} when it is set and names an address of this host (a name, an address, a subnet), else
     * for each host the local address the kernel routes to it from.
     *
     * @throws IllegalArgumentException when it would be loopback, or no host can be reached
     */
    static Listen rendezvous(Collection<String> remoteHosts, Map<String, String> params) {
        String explicit = explicitInterface(params);
        if (explicit != null) {
            if (LocalAddresses.isLoopback(explicit)) {
                throw new IllegalArgumentException(TCP_INTERFACE + "=" + explicit + " is loopback, which the other"
                        + " hosts of the job cannot reach: name an interface, an address or a subnet they reach");
            }
            InetAddress a = LocalAddresses.resolve(explicit, false);
            if (a != null && !a.isAnyLocalAddress()) {
                return new Listen(a, Map.of(), a);
            }
        }
        Map<String, InetAddress> byHost = new LinkedHashMap<>();
        Set<InetAddress> sources = new LinkedHashSet<>();
        List<String> unreachable = new ArrayList<>();
        for (String host : remoteHosts) {
            InetAddress src = null;
            try {
                InetAddress target = InetAddress.getByName(nodeOf(host));
                src = target.isLoopbackAddress() ? null : LocalAddresses.routeTo(target);
            } catch (UnknownHostException e) {
                // a name only the agent knows (an ssh alias): the others decide
            }
            if (src == null || src.isLoopbackAddress()) {
                unreachable.add(host);
            } else {
                byHost.put(host, src);
                sources.add(src);
            }
        }
        if (sources.isEmpty()) {
            List<InetAddress> any = LocalAddresses.nonLoopback();
            if (any.isEmpty()) {
                throw new IllegalArgumentException("this host has no address but loopback, and the job's hosts "
                        + unreachable + " are elsewhere");
            }
            // no host name resolves here: listen everywhere and tell them this host's first address
            InetAddress wildcard = anyLocal();
            return new Listen(wildcard, Map.of(), any.get(0));
        }
        InetAddress first = sources.iterator().next();
        for (String host : unreachable) {
            byHost.put(host, first);
        }
        return new Listen(sources.size() == 1 ? first : anyLocal(), byHost, first);
    }

    /** The value of {@code jrma.tcp.interface} the user set (job parameter, system property, environment), or null. */
    static String explicitInterface(Map<String, String> params) {
        String v = params.get(TCP_INTERFACE);
        if (v == null) {
            v = System.getProperty(TCP_INTERFACE);
        }
        if (v == null) {
            v = System.getenv(TCP_INTERFACE_ENV);
        }
        return v == null || v.isBlank() ? null : v.trim();
    }

    private static InetAddress anyLocal() {
        try {
            return InetAddress.getByName("0.0.0.0");
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
