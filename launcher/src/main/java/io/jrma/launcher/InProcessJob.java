package io.jrma.launcher;

import io.jrma.JvmFlags;
import io.jrma.RmaException;
import io.jrma.core.config.Params;
import io.jrma.core.runtime.Job;
import io.jrma.core.runtime.RankThreads;
import java.io.PrintStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * A jrmarun job whose ranks are all threads of one JVM on this host, run by jrmarun's own JVM: no second JVM
 * starts, so the job starts in one JVM's time. The program's class path is a class loader under jrma's (each rank a
 * {@link RankClassLoader} of its own, as in a {@link JvmHost}); stdin, stdout and stderr are jrmarun's; failures,
 * exit codes and messages are those of the same job in a JVM apart (a rank that calls {@code System.exit} ends
 * jrmarun with its code, as it would end that JVM).
 *
 * <p>Used only when this JVM has the flags jrma needs ({@link JvmFlags}: {@code bin/jrmarun} starts it with them)
 * and the job asks for nothing a JVM apart would give it: JVM options, variables, the JDK 17 linker.
 */
final class InProcessJob {
    private InProcessJob() {
    }

    /** Why the job cannot run in this JVM, or empty when it can. */
    static Optional<String> whyNot(JobLauncher.Options o) {
        if (!Boolean.parseBoolean(Params.LAUNCHER_IN_PROCESS.get(o.params))) {
            return Optional.of(Params.LAUNCHER_IN_PROCESS.name() + " is false");
        }
        if (o.njvms != 1 || o.hostOfJvm != null || o.body != null || o.mainClass == null) {
            return Optional.of("its ranks are not all threads of one JVM of this host");
        }
        if (!o.jvmArgs.isEmpty() || !o.env.isEmpty() || o.jdkLinker) {
            return Optional.of("it asks for JVM options or variables of its own");
        }
        List<String> mine = ProcessHandle.current().info().arguments().map(Arrays::asList).orElse(List.of());
        for (String flag : JvmFlags.current().split(" ")) {
            if (!mine.contains(flag)) {
                return Optional.of("this JVM was started without " + flag);
            }
        }
        return Optional.empty();
    }

    /** Runs the job here; returns jrmarun's exit code. */
    static int run(JobLauncher.Options o, PrintStream diagnostics) {
        URL[] program = JrmaRun.classPathUrls(o.userClasspath == null ? "" : o.userClasspath);
        ClassLoader app = new URLClassLoader("jrma-program", program, JrmaRun.class.getClassLoader());
        Thread.currentThread().setContextClassLoader(app);
        if (o.tagOutput) {
            TaggedOutput.install(0);
        }
        Job job = new Job(o.nranks, o.params);
        RankThreads.Body body;
        try {
            body = JvmHost.mainBody(o.mainClass, o.args, job.params(), app, program);
        } catch (RmaException e) {
            diagnostics.println("jrmarun: " + e.getMessage());
            return 1;
        }
        int[] all = new int[o.nranks];
        Arrays.setAll(all, r -> r);
        Rendezvous.RankDone[] first = {null};
        RankThreads.Outcome out;
        try {
            out = RankThreads.run(job, all, body, o.timeoutMs, (rank, failure, secondary) -> {
                synchronized (first) {
                    if (failure != null && !secondary && first[0] == null) {
                        first[0] = JvmHost.done(rank, JvmHost.exitCode(failure), false, failure);
                    }
                }
            });
        } finally {
            job.stop();
        }
        System.out.flush();
        int code = 0;
        String message = null;
        String trace = null;
        synchronized (first) {
            if (out.timedOut) {
                code = JobLauncher.TIMEOUT_EXIT;
                message = "job timed out after " + o.timeoutMs + " ms" + (out.stuckRanks.isEmpty() ? ""
                        : "; ranks still running outside the library: " + out.stuckRanks);
            } else if (first[0] != null) {
                Rendezvous.RankDone d = first[0];
                code = d.code();
                // a report without a trace is a deliberate abort, whose message names the rank and the code
                message = d.trace() == null ? d.message() : "rank " + d.rank() + " failed: " + d.message();
                trace = d.trace();
            } else if (job.isAborted()) {
                code = 1;
                message = "the job was aborted";
            }
        }
        if (message != null && diagnostics != null) {
            diagnostics.println("jrmarun: " + message);
            if (trace != null) {
                diagnostics.print(trace);
            }
            diagnostics.println("jrmarun: job torn down, exit code " + code);
        }
        return code;
    }
}
