package io.jrma.launcher;

import io.jrma.Jrma;
import java.io.File;
import java.io.IOException;
import java.util.Enumeration;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * The run {@code bin/jrmarun} makes a class-data sharing archive from, once per JDK and jar set ({@code
 * -XX:ArchiveClassesAtExit} before JDK 25; from JDK 25 an ahead-of-time cache, {@code -XX:AOTCacheOutput}, which also
 * keeps the JIT's method profiles of the run): loads every class of jrma's own jars (the launcher's, the engine's, the
 * transports', the {@code mpi} package's), without initializing them, and runs {@code
 * io.jrma.training.WarmUpTraining} (MPI.Init's warm-up, {@code jrma.mpi.warmup}) on two thread ranks so that the
 * classes a job uses are linked and, on JDK 25+, their methods profiled. The JVMs of later jobs map the archive
 * instead of loading and verifying those classes one by one, and on JDK 25+ the JIT compiles the profiled methods
 * early instead of learning them in the user's first loops.
 */
public final class CdsTraining {
    /** The jars whose every class goes into the archive: jrma's own (the mpi package is mpi.jar in an install). */
    private static final String[] OWN_JARS = {"rma-core-", "launcher-", "window-shm-", "window-rdma-", "sync-epochs-",
        "two-sided-compat-", "mpi.jar"};
    private static final String CLASS_SUFFIX = ".class";
    private static final int TRAINING_RANKS = 2;
    /** The mpi program whose loops train the archive (in two-sided-compat; the JIT's profiles too on JDK 25+). */
    private static final String TRAINING_PROGRAM = "io.jrma.training.WarmUpTraining";

    private CdsTraining() {
    }

    public static void main(String[] args) throws IOException {
        ClassLoader loader = CdsTraining.class.getClassLoader();
        int loaded = 0;
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            String name = new File(entry).getName();
            boolean own = false;
            for (String prefix : OWN_JARS) {
                own |= name.startsWith(prefix) && name.endsWith(".jar") || name.equals(prefix);
            }
            if (own) {
                loaded += loadAll(entry, loader);
            }
        }
        boolean trained = false;
        try {
            Class.forName(TRAINING_PROGRAM, false, loader);
            // the ranks run as threads of this JVM (it has jrma's flags), as a thread job of jrmarun does
            int code = JrmaRun.run(new String[] {"-n", String.valueOf(TRAINING_RANKS), "--param", "jrma.mpi.warmup=on",
                TRAINING_PROGRAM}, System.err);
            if (code != 0) {
                throw new IllegalStateException("the training program ended with code " + code);
            }
            trained = true;
        } catch (ClassNotFoundException e) {
            Jrma.run(TRAINING_RANKS, world -> world.barrier()); // no mpi package on this class path: the engine only
        }
        System.out.println("jrma: " + loaded + " classes loaded for the archive" + (trained ? ", and "
                + TRAINING_PROGRAM + " run" : ""));
    }

    private static int loadAll(String jar, ClassLoader loader) throws IOException {
        int n = 0;
        try (JarFile f = new JarFile(jar)) {
            for (Enumeration<JarEntry> e = f.entries(); e.hasMoreElements();) {
                String name = e.nextElement().getName();
                if (name.endsWith(CLASS_SUFFIX) && !name.endsWith("module-info.class")) {
                    try {
                        Class.forName(name.substring(0, name.length() - CLASS_SUFFIX.length()).replace('/', '.'), false,
                                loader);
                        n++;
                    } catch (LinkageError | ClassNotFoundException ignored) {
                        // a class whose optional library is missing here (UCX, DiSNI): not archived
                    }
                }
            }
        }
        return n;
    }
}
