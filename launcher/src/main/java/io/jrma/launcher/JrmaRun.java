package io.jrma.launcher;

import io.jrma.core.config.Params;
import io.jrma.core.os.HostId;
import io.jrma.core.os.Topology;
import io.jrma.spi.Components;
import io.jrma.spi.TransportProvider;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

/**
 * {@code jrmarun -n N [--jvms J | --ranks-per-jvm K] [-cp CLASSPATH] [options] MAINCLASS [ARGS...]}: runs
 * {@code MAINCLASS.main(ARGS)} as N ranks spread over J JVMs of this host (consecutive ranks share a JVM; default:
 * one JVM, ranks as threads, which is this JVM when it has jrma's flags: {@link InProcessJob}). Ranks that share a JVM
 * are threads; a JVM of one rank runs {@code MAINCLASS.main} on its main thread, as mpirun starts a process
 * ({@link MainRankBootstrap}). A rank finds its world communicator with {@code io.jrma.Jrma.world()}.
 *
 * <p>Every rank's stdout and stderr reach jrmarun's ({@code --tag-output} prefixes each line with
 * {@code [1,RANK]<stdout>:}). The exit code is the first non-zero exit code of a rank: 1 for a rank whose
 * main threw, the code a rank passed to System.exit (in a JVM of its own, or the first of its JVM), 137
 * for a JVM killed by SIGKILL, 124 on {@code --timeout}, 2 for a usage error. On the first failure the
 * whole job is torn down within seconds (ranks blocked in jrma fail fast; after a grace period every JVM
 * still running is killed) and jrmarun says which rank failed and why.
 *
 * <p>The JVM flags jrma needs are added here, once ({@link io.jrma.JvmFlags}); {@code --jvm-arg} adds more.
 */
public final class JrmaRun {
    static final String USAGE = String.join("\n",
            "usage: jrmarun -n N [--jvms J | --ranks-per-jvm K] [-cp CLASSPATH] [options] MAINCLASS [ARGS...]",
            "       jrmarun -n N [options] java [JAVA OPTIONS] (MAINCLASS | -jar JAR) [ARGS...]   (as with mpirun)",
            "  -n, -np N              number of ranks (also --np, -c; with hosts: default one per slot)",
            "  --jvms J               spread the ranks over J JVMs (default 1: all ranks are threads of one JVM)",
            "  --ranks-per-jvm K      K consecutive ranks per JVM (the last JVM may hold fewer)",
            "  -cp, --classpath CP    the program's class path (added to jrma's own; default $CLASSPATH, else .)",
            "  --tag-output           prefix every output line with [1,RANK]<stdout>: or <stderr>:",
            "  --timeout SECONDS      abort the job after this long (exit code 124)",
            "  -x NAME[=VALUE]        export NAME (with VALUE, or jrmarun's own value) to every JVM",
            "  --param NAME=VALUE     set a jrma run-time parameter for the job (e.g. jrma.progress=thread)",
            "  --jvm-arg ARG          pass ARG to every JVM (e.g. -Xmx2g); repeatable",
            "  --jdk-linker           on JDK 17, system calls through the JDK's incubating linker instead of JNA",
            "                         (quicker kernel copies; the JDK prints a warning line per JVM); 22+ does it",
            "                         anyway",
            "  --grace SECONDS        after a failure, how long JVMs may take to stop before they are killed",
            "                         (default 3)",
            "  --cleanup              only remove the /dev/shm files of jrma JVMs that no longer run, and exit",
            "  --map-by POLICY        where ranks go (as mpirun's): slot (default), node, core, hwthread, socket,",
            "                         numa, ppr:N:RESOURCE (N per core|socket|numa|node), each with :PE=n (n cores",
            "                         a rank)",
            "  --rank-by POLICY       how placed ranks are numbered: slot, node, core, socket, numa (default: as",
            "                         mapped)",
            "  --bind-to POLICY       none (default), core, hwthread, socket, numa: a JVM of one rank is bound whole,",
            "                         a JVM of several ranks binds each rank's thread (see docs/mapping.md)",
            "  --cpus-per-rank N      N cores per rank (as :PE=N; binds to them unless --bind-to says otherwise)",
            "  --report-bindings      each rank prints its binding on stderr, as mpirun does",
            "  --display-map          print the job map (hosts, slots, ranks, JVMs, bindings) before the job starts",
            "  -H, --host a,b:4,c     run on these hosts (:N slots each, 1 without); ranks fill them in order, slot",
            "                         by slot; JVMs on other hosts are started with the launch agent (default: one JVM",
            "                         per host, all its ranks as threads; --jvms J spreads J JVMs over the hosts,",
            "                         --ranks-per-jvm K splits each host's ranks into JVMs of K)",
            "  --hostfile FILE        the hosts from an Open MPI hostfile: 'node slots=N max_slots=M', # comments",
            "                         (neither given inside a Slurm allocation, sbatch or salloc: the allocation's",
            "                         nodes and slots, as mpirun takes them; JRMA_SLURM=0 turns that off)",
            "  -N, --npernode N       N ranks on each host",
            "  --oversubscribe        allow more ranks than slots (without it that is an error)",
            "  --launch-agent CMD     how to start a JVM on another host: CMD HOST COMMAND (default ssh; as mpirun's",
            "                         plm_rsh_agent); the job secret goes on its stdin, never on a command line;",
            "                         inside a Slurm allocation srun (one step per host) unless this is given",
            "  --prefix DIR           jrma's install on the other hosts is in DIR (its jars in DIR/lib); default: the",
            "                         same class path as here (a shared file system)",
            "  -h, --help             this text",
            "  (mpirun's --allow-run-as-root is accepted and needs nothing; the address of a job across hosts is",
            "   jrma.tcp.interface's, by default the one that routes to the other hosts: see docs/multi-host.md)");

    /**
     * The hosts of the Slurm allocation this jrmarun runs in (inside {@code sbatch} or {@code salloc}), in
     * {@code --host} form ({@code n1:2,n2:2}), as {@code mpirun} takes an allocation's nodes and slots when it is given
     * no hosts; empty outside an allocation or with {@code JRMA_SLURM=0}.
     *
     * <p>Throws ERR_ARG (an {@code RmaException}) when the allocation's variables do not parse.
     */
    static Optional<String> allocationHosts(Map<String, String> env) {
        if ("0".equals(env.get(SLURM_OFF)) || !SlurmAllocation.inAllocation(env)) {
            return Optional.empty();
        }
        return Optional.of(SlurmAllocation.from(env).hostSpec());
    }

    /** Whether {@code program} is an executable file in one of the directories of {@code env}'s PATH. */
    static boolean onPath(String program, Map<String, String> env) {
        for (String d : env.getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, program))) {
                return true;
            }
        }
        return false;
    }

    /** {@code JRMA_SLURM=0}: jrmarun ignores the Slurm allocation it runs in. */
    static final String SLURM_OFF = "JRMA_SLURM";

    /** The option that only removes the shared-memory files of dead jrma JVMs (also run on other hosts). */
    static final String CLEANUP = "--cleanup";

    /** Remarks about accepted but unsupported mpirun options, printed before the job starts. */
    private static final List<String> notes = new ArrayList<>();

    private JrmaRun() {
    }

    public static void main(String[] argv) {
        System.exit(run(argv, System.err));
    }

    /** Runs jrmarun with {@code argv}; returns its exit code. */
    public static int run(String[] argv, PrintStream err) {
        if (argv.length == 1 && argv[0].equals(CLEANUP)) {
            List<String> gone = new ArrayList<>();
            for (TransportProvider p : Components.transportProviders()) {
                gone.addAll(p.reclaimDead(Map.of()));
            }
            System.out.println("jrmarun: removed " + gone.size() + " file(s) of dead jrma JVMs from "
                    + Params.SHM_DIR.get(null) + (gone.isEmpty() ? "" : ": " + String.join(" ", gone)));
            return 0;
        }
        JobLauncher.Options o;
        try {
            o = parse(argv);
        } catch (IllegalArgumentException e) {
            err.println("jrmarun: " + e.getMessage());
            if (!(e instanceof RankMap.MappingException)) { // a mapping error's line names the choices itself
                err.println(USAGE);
            }
            return 2;
        }
        if (o == null) {
            System.out.println(USAGE);
            return 0;
        }
        o.diagnostics = err;
        notes.forEach(err::println);
        String missing = missingMainClass(o);
        if (missing != null) {
            err.println("jrmarun: " + missing);
            return 2;
        }
        if (o.jobMap != null) {
            System.out.print(o.jobMap);
            System.out.flush();
        }
        if (InProcessJob.whyNot(o).isEmpty()) {
            return InProcessJob.run(o, err); // every rank a thread of this host: this JVM runs them
        }
        JobLauncher.Result r = JobLauncher.run(o);
        return r.exitCode;
    }

    /** Parses the command line; null for --help. */
    static JobLauncher.Options parse(String[] a) {
        JobLauncher.Options o = new JobLauncher.Options();
        notes.clear();
        o.inheritOutput = true;
        o.classpath = System.getProperty("java.class.path");
        int n = -1;
        int jvms = -1;
        int perJvm = -1;
        int npernode = -1;
        RankMap.Policy policy = new RankMap.Policy();
        boolean displayMap = false;
        boolean agentGiven = false;
        List<String> hostArgs = new ArrayList<>();
        String hostfile = null;
        String userCp = null;
        int i = 0;
        while (i < a.length && a[i].startsWith("-")) {
            String opt = a[i];
            switch (opt) {
                case "-h", "--help" -> {
                    return null;
                }
                case "-n", "-np", "--np", "-c" -> n = positive(opt, value(a, i++));
                case "--allow-run-as-root", "--use-hwthread-cpus" -> {
                    // accepted for mpirun command lines: jrma runs as any user; hardware threads: --bind-to hwthread
                }
                case "--oversubscribe", "-oversubscribe" -> policy.oversubscribe = true;
                case "-H", "--host", "-host" -> hostArgs.add(value(a, i++));
                case "--hostfile", "-hostfile", "--machinefile", "-machinefile" -> hostfile = value(a, i++);
                case "-N", "--npernode", "-npernode" -> npernode = positive(opt, value(a, i++));
                case "--launch-agent", "-launch-agent" -> {
                    agentGiven = true;
                    o.launchAgent = value(a, i++);
                    if (o.launchAgent.isBlank()) {
                        throw new IllegalArgumentException("--launch-agent needs a command");
                    }
                }
                case "--prefix", "-prefix" -> {
                    o.remotePrefix = value(a, i++);
                    o.remoteLibraryClasspath = Path.of(o.remotePrefix, "lib", "*").toString();
                }
                case "--bind-to", "-bind-to" -> policy.bindTo(value(a, i++));
                case "--report-bindings", "-report-bindings" -> o.params.put(Params.BIND_REPORT.name(), "true");
                case "--display-map", "-display-map" -> displayMap = true;
                case "--map-by", "-map-by" -> policy.mapBy(value(a, i++));
                case "--rank-by", "-rank-by" -> policy.rankBy(value(a, i++));
                case "--cpus-per-rank", "-cpus-per-rank", "--cpus-per-proc", "-cpus-per-proc" ->
                        policy.pe = positive(opt, value(a, i++));
                case "--jvms" -> jvms = positive(opt, value(a, i++));
                case "--ranks-per-jvm" -> perJvm = positive(opt, value(a, i++));
                case "-cp", "--classpath", "-classpath" -> userCp = value(a, i++);
                case "--tag-output" -> o.tagOutput = true;
                case "--timeout" -> o.timeoutMs = (long) (positiveDouble(opt, value(a, i++)) * 1000);
                case "--grace" -> o.graceMs = (long) (positiveDouble(opt, value(a, i++)) * 1000);
                case "-x" -> {
                    String v = value(a, i++);
                    int eq = v.indexOf('=');
                    if (eq == 0) {
                        throw new IllegalArgumentException("-x needs NAME or NAME=VALUE, got " + v);
                    }
                    if (eq > 0) {
                        o.env.put(v.substring(0, eq), v.substring(eq + 1));
                    } else if (System.getenv(v) != null) {
                        o.env.put(v, System.getenv(v));
                    }
                }
                case "--param" -> {
                    String v = value(a, i++);
                    int eq = v.indexOf('=');
                    if (eq <= 0) {
                        throw new IllegalArgumentException("--param needs NAME=VALUE, got " + v);
                    }
                    o.params.put(v.substring(0, eq), v.substring(eq + 1));
                }
                case "--jvm-arg" -> o.jvmArgs.add(value(a, i++));
                case "--jdk-linker" -> {
                    int feature = Runtime.version().feature();
                    o.jdkLinker = feature == 17;
                    if (feature > 17 && feature < 22) {
                        notes.add("jrmarun: --jdk-linker needs JDK 17 or 22+ (this is JDK " + feature
                                + "); system calls stay on JNA");
                    }
                }
                default -> throw new IllegalArgumentException("unknown option " + opt);
            }
            i++;
        }
        if (jvms > 0 && perJvm > 0) {
            throw new IllegalArgumentException("give --jvms or --ranks-per-jvm, not both");
        }
        if (!hostArgs.isEmpty() && hostfile != null) {
            throw new IllegalArgumentException("give --host or --hostfile, not both");
        }
        if (hostArgs.isEmpty() && hostfile == null) {
            Optional<String> allocated = allocationHosts(System.getenv());
            allocated.ifPresent(hostArgs::add);
            if (allocated.isPresent() && !agentGiven && onPath(RemoteStart.SLURM_AGENT, System.getenv())) {
                o.launchAgent = RemoteStart.SLURM_AGENT; // as mpirun's plm/slurm: the nodes need no ssh
            }
        }
        RankMap map;
        if (!hostArgs.isEmpty() || hostfile != null) {
            HostList hosts = hostfile != null ? HostList.ofHostfile(Path.of(hostfile)) : HostList.ofHostArgs(hostArgs);
            map = RankMap.compute(hosts, Topology.here(), n, npernode, policy);
            mapOverHosts(o, hosts, map.hostOfRank(), jvms, perJvm);
        } else {
            if (npernode > 0 && n < 1) {
                n = npernode; // -N alone: this host is the only one
            }
            if (n < 1 && policy.ppr > 0) { // ppr alone: as many as it places on this host
                n = policy.ppr * Topology.here().count(policy.pprKind);
            }
            if (n < 1) {
                throw new IllegalArgumentException(
                        "the number of ranks is required: -n N (or hosts: --host, --hostfile)");
            }
            // one host, whose slots are the ranks asked for: jrmarun runs any number of ranks here, as threads
            HostList here = HostList.of(List.of(new HostList.Host(HostId.hostName(), n, HostList.NO_MAX)));
            map = RankMap.compute(here, Topology.here(), n, 0, policy);
            if (perJvm > 0) {
                jvms = (n + perJvm - 1) / perJvm;
                o.jvmOfRank = new int[n];
                for (int r = 0; r < n; r++) {
                    o.jvmOfRank[r] = r / perJvm;
                }
            }
            if (jvms < 1) {
                jvms = 1;
            }
            if (jvms > n) {
                throw new IllegalArgumentException("--jvms " + jvms + " is more JVMs than ranks (" + n + ")");
            }
            o.nranks = n;
            o.njvms = jvms;
        }
        if (map.binds()) {
            o.params.put(Params.BIND_CPUS.name(), map.bindParam());
        } else if (policy.bindTo != null) {
            o.params.put(Params.BIND.name(), "none");
        }
        if (displayMap) {
            o.jobMap = map.display(o.jvmOfRank != null ? o.jvmOfRank : JobLauncher.blockMap(o.nranks, o.njvms));
        }
        if (i >= a.length) {
            throw new IllegalArgumentException("no MAINCLASS given");
        }
        if (a[i].equals("java") || a[i].endsWith(File.separator + "java")) {
            // the program as a java command line, as mpirun users write it: its options apply to every JVM
            i++;
            while (i < a.length && a[i].startsWith("-")) {
                String opt = a[i];
                if (opt.equals("-cp") || opt.equals("-classpath") || opt.equals("--class-path")) {
                    userCp = value(a, i++);
                } else if (opt.startsWith("--class-path=")) {
                    userCp = opt.substring("--class-path=".length());
                } else if (opt.equals("-jar")) {
                    String jar = value(a, i++);
                    userCp = userCp == null ? jar : userCp + File.pathSeparator + jar;
                    o.mainClass = mainClassOf(jar);
                    i++;
                    break;
                } else if (JAVA_OPTIONS_WITH_VALUE.contains(opt)) {
                    o.jvmArgs.add(opt);
                    o.jvmArgs.add(value(a, i++));
                } else {
                    o.jvmArgs.add(opt);
                }
                i++;
            }
            if (o.mainClass == null) {
                if (i >= a.length) {
                    throw new IllegalArgumentException("the java command line names no MAINCLASS (or -jar JAR)");
                }
                o.mainClass = a[i++];
            }
            o.args = Arrays.copyOfRange(a, i, a.length);
        } else {
            o.mainClass = a[i];
            o.args = Arrays.copyOfRange(a, i + 1, a.length);
        }
        if (userCp == null) { // as java: the CLASSPATH variable, else the current directory
            String env = System.getenv("CLASSPATH");
            userCp = env != null && !env.isEmpty() ? env : ".";
        }
        o.userClasspath = userCp;
        o.classpath = o.classpath + File.pathSeparator + userCp;
        o.forwardStdin = true;
        o.rankOnMainThread = true; // a JVM of one rank runs main on its main thread, as mpirun's processes do
        return o;
    }

    /**
     * Puts each rank's host ({@code hostOfRank}, from the {@link RankMap}) and each host's ranks in JVMs there
     * ({@link HostList#jvmMap}), and notes which JVMs run on other hosts.
     */
    private static void mapOverHosts(JobLauncher.Options o, HostList hosts, int[] hostOfRank, int jvms, int perJvm) {
        int[] jvmOfRank = HostList.jvmMap(hostOfRank, jvms, perJvm);
        o.nranks = hostOfRank.length;
        o.jvmOfRank = jvmOfRank;
        o.njvms = Arrays.stream(jvmOfRank).max().orElse(0) + 1;
        String[] hostOfJvm = new String[o.njvms];
        boolean remote = false;
        Map<String, Boolean> here = new HashMap<>();
        for (int r = 0; r < o.nranks; r++) {
            String h = hosts.hosts().get(hostOfRank[r]).name();
            boolean local = here.computeIfAbsent(h, RemoteStart::isLocal);
            hostOfJvm[jvmOfRank[r]] = local ? null : h;
            remote |= !local;
        }
        o.hostOfJvm = remote ? hostOfJvm : null;
    }

    /** java's options that take the next word as their value. */
    private static final Set<String> JAVA_OPTIONS_WITH_VALUE = Set.of("--add-opens",
            "--add-exports",
            "--add-reads", "--add-modules", "--module-path", "-p", "--upgrade-module-path", "--limit-modules",
            "--patch-module", "--enable-native-access");

    /** The Main-Class of a jar's manifest. */
    private static String mainClassOf(String jar) {
        try (JarFile f = new JarFile(jar)) {
            Manifest m = f.getManifest();
            String main = m == null ? null : m.getMainAttributes().getValue(Attributes.Name.MAIN_CLASS);
            if (main == null) {
                throw new IllegalArgumentException("no Main-Class in the manifest of " + jar);
            }
            return main.trim();
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + jar + ": " + e.getMessage());
        }
    }

    /**
     * Why the main class cannot be loaded from the program's class path and jrma's, or null when it can: checked here,
     * before any JVM starts, so a mistyped name or class path is one line, not a failed job.
     */
    static String missingMainClass(JobLauncher.Options o) {
        if (o.userClasspath == null || o.mainClass == null) {
            return null;
        }
        try (URLClassLoader l = new URLClassLoader(classPathUrls(o.userClasspath),
                JrmaRun.class.getClassLoader())) {
            Class.forName(o.mainClass, false, l);
            return null;
        } catch (ClassNotFoundException e) {
            return "cannot find the main class " + o.mainClass + " on the program's class path (" + o.userClasspath
                    + ", in " + System.getProperty("user.dir") + "); give it with -cp DIR|JAR";
        } catch (LinkageError | IOException e) {
            return null; // found; what it lacks, the JVMs will say
        }
    }

    /** A class path as {@code java} takes it ({@code dir/*}: every jar of the directory), as URLs. */
    static URL[] classPathUrls(String classpath) {
        List<URL> urls = new ArrayList<>();
        for (String e : classpath.split(File.pathSeparator)) {
            try {
                if (e.endsWith("*")) { // java's dir/* : every jar of the directory
                    File dir = new File(e.substring(0, e.length() - 1));
                    File[] jars = dir.listFiles((d, name) -> name.endsWith(".jar") || name.endsWith(".JAR"));
                    for (File j : jars == null ? new File[0] : jars) {
                        urls.add(j.toURI().toURL());
                    }
                } else if (!e.isEmpty()) {
                    urls.add(new File(e).toURI().toURL());
                }
            } catch (MalformedURLException ignored) {
                // java ignores what it cannot use too
            }
        }
        return urls.toArray(new URL[0]);
    }

    private static String value(String[] a, int i) {
        if (i + 1 >= a.length) {
            throw new IllegalArgumentException(a[i] + " needs a value");
        }
        return a[i + 1];
    }

    private static int positive(String opt, String v) {
        try {
            int x = Integer.parseInt(v);
            if (x < 1) {
                throw new NumberFormatException();
            }
            return x;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(opt + " needs a positive integer, got " + v);
        }
    }

    private static double positiveDouble(String opt, String v) {
        try {
            double x = Double.parseDouble(v);
            if (!(x > 0)) {
                throw new NumberFormatException();
            }
            return x;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(opt + " needs a positive number of seconds, got " + v);
        }
    }

}
