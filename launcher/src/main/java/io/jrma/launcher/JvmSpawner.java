package io.jrma.launcher;

import io.jrma.JrmaInfo;
import io.jrma.JvmFlags;
import io.jrma.core.config.Param;
import io.jrma.core.config.Params;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.lang.ProcessBuilder.Redirect;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Starts the JVMs of a job for its {@link JobLauncher}: the command line (the library's JVM flags, the job's
 * parameters, the class path here or on the other host, a {@link JvmHost} or the program's main class), the
 * environment that leads the JVM to the rendezvous, the secret (in a file here, on the launch agent's stdin for
 * another host), and the copying of its output. Used by the launcher's start-up thread only.
 */
final class JvmSpawner {
    private final JobLauncher.Options o;
    private final JobLayout layout;

    JvmSpawner(JobLauncher.Options o, JobLayout layout) {
        this.o = o;
        this.layout = layout;
    }

    /**
     * Starts JVM {@code j}, told to join the rendezvous at {@code rendezvous:port} with link {@code jobId} and
     * {@code secret}, and whose handshake waits {@code handshakeMs}.
     */
    Process spawn(int j, String jobId, String secret, InetAddress rendezvous, int port, SecretFile secrets,
                  int handshakeMs)
            throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(o.javaCommand);
        String flags = o.jdkLinker ? JvmFlags.withJdkLinker(Runtime.version().feature()) : JvmFlags.current();
        cmd.addAll(Arrays.asList(flags.split(" ")));
        cmd.add("-Dslf4j.internal.verbosity=ERROR"); // Chronicle's "no SLF4J provider" notice, once per JVM
        String archive = Params.LAUNCHER_CDS_ARCHIVE.get(o.params);
        if (!archive.isEmpty() && layout.hostOf(j) == null && Files.isRegularFile(Path.of(archive))) {
            // jrma's classes mapped, not loaded one by one (JDK 25+: an ahead-of-time cache, with the JIT's profiles)
            cmd.add((archive.endsWith(JobLauncher.AOT_CACHE_SUFFIX) ? "-XX:AOTCache=" : "-XX:SharedArchiveFile=")
                    + archive);
        }
        for (String k : System.getProperties().stringPropertyNames()) {
            if (k.startsWith("jrma.")) { // run-time parameters given to the launching JVM apply to the whole job
                cmd.add("-D" + k + "=" + System.getProperty(k));
            }
        }
        cmd.addAll(o.jvmArgs);
        cmd.add("-cp");
        String host = layout.hostOf(j);
        cmd.add(host != null && o.remoteLibraryClasspath != null ? o.remoteLibraryClasspath
                + (o.userClasspath == null ? "" : File.pathSeparator + o.userClasspath) : o.classpath);
        int mainRank = layout.mainRank(j);
        Map<String, String> env = new LinkedHashMap<>(o.env);
        if (mainRank >= 0) { // as mpirun starts it: the program's main on the main thread, joining at MPI.Init
            cmd.add(o.mainClass);
            cmd.addAll(Arrays.asList(o.args));
            env.put(MainRankBootstrap.ENV_MAIN_RANK, String.valueOf(mainRank));
        } else {
            cmd.add(JvmHost.class.getName());
        }
        env.put(LauncherLink.ENV_RENDEZVOUS, hostPort(rendezvous, port));
        env.put(LauncherLink.ENV_JVM, String.valueOf(j));
        env.put(LauncherLink.ENV_LINK_ID, jobId);
        // the JVM's side of the handshake waits as long as this side (a --param of jrmarun is not in its properties)
        env.put(Params.LAUNCHER_HANDSHAKE_TIMEOUT_MS.envName(), String.valueOf(handshakeMs));
        ProcessBuilder pb;
        if (host == null) {
            env.put(LauncherLink.ENV_SECRET_FILE, secrets.write(j, secret).toString());
            pb = new ProcessBuilder(cmd);
            pb.environment().putAll(env);
        } else {
            // nothing secret in this command line: the secret goes on the agent's stdin, below, and the remote shell
            // puts it in a file of its own
            forwardParams(env, System.getenv());
            pb = new ProcessBuilder(RemoteStart.command(o.launchAgent, host, System.getProperty("user.dir"),
                    o.remotePrefix, env, cmd, true));
        }
        // one rank per JVM: jrmarun tags its lines, as mpirun does (what the program prints before MPI.Init too)
        String tag = layout.outputTag(j);
        if (o.inheritOutput && host == null && tag == null) {
            pb.redirectOutput(Redirect.INHERIT).redirectError(Redirect.INHERIT);
        }
        Process p = pb.start();
        OutputStream in = p.getOutputStream();
        if (host != null) {
            try {
                in.write((secret + "\n").getBytes(StandardCharsets.US_ASCII));
                in.flush();
            } catch (IOException e) {
                // the agent ended at once (it could not reach the host, or is no launch agent): its exit says so
            }
        }
        if (j == 0 && o.forwardStdin) {
            // JVM 0's stdin is jrmarun's (after the secret's line, for the agent's shell): rank 0 reads what the user
            // types or pipes in
            Thread t = new Thread(() -> {
                try (in) {
                    System.in.transferTo(in);
                } catch (IOException ignored) {
                    // the JVM is gone, or stopped reading
                }
            }, "jrma-stdin");
            t.setDaemon(true);
            t.start();
        } else {
            try {
                in.close();
            } catch (IOException e) {
                if (host == null) {
                    throw e;
                }
                // as above: the agent is gone
            }
        }
        if (host == null && (!o.inheritOutput || tag != null)) {
            OutputPump.lines(p.getInputStream(), System.out, "jrma-out-" + j, tag == null ? null : tag + "<stdout>:");
            OutputPump.lines(p.getErrorStream(), System.err, "jrma-err-" + j, tag == null ? null : tag + "<stderr>:");
        }
        return p;
    }

    /** {@code host:port}, an IPv6 address in brackets. */
    private static String hostPort(InetAddress a, int port) {
        String h = a.getHostAddress();
        return (h.indexOf(':') >= 0 ? "[" + h + "]" : h) + ":" + port;
    }

    /**
     * Copies the output of a JVM on another host (it comes through the agent) line by line to this process's, and
     * remembers the last error line: what the agent said when it could not start the JVM.
     */
    void pumpRemote(LaunchedJvm w) {
        String tag = layout.outputTag(w.index);
        OutputPump.lines(w.process.getInputStream(), System.out, "jrma-out-" + w.index,
                tag == null ? null : tag + "<stdout>:");
        w.errorPrefix = tag == null ? "" : tag + "<stderr>:";
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(w.process.getErrorStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    w.errorLine(line);
                }
            } catch (IOException ignored) {
                // the agent is gone
            }
        }, "jrma-err-" + w.index);
        t.setDaemon(true);
        t.start();
    }

    /**
     * Adds to a remote JVM's environment the run-time parameters set in this one's ({@code JRMA_MPI_WARMUP=off}): a
     * JVM this host starts inherits them, one the launch agent starts on another host does not, and a job's
     * parameters are the same on every host. Variables already in {@code env} ({@code -x}, jrmarun's own) win.
     */
    static void forwardParams(Map<String, String> env, Map<String, String> from) {
        for (Param p : JrmaInfo.allParams()) {
            String v = from.get(p.envName());
            if (v != null) {
                env.putIfAbsent(p.envName(), v);
            }
        }
    }
}
